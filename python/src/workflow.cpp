// strata.workflow from Python: task kinds whose functions are written in Python, run by a
// worker with the same leases, heartbeats, retries and exactly-once results as C++ tasks
// (workflow/worker.hpp); tasks and plans submitted and waited for through the queue.
#include "bindings.hpp"
#include "strata/hub/hub.hpp"
#include "strata/workflow/plan.hpp"
#include "strata/workflow/queue.hpp"
#include "strata/workflow/registry.hpp"
#include "strata/workflow/worker.hpp"

namespace strata::python {
namespace {

py::dict task_dict(const workflow::Task& t) {
  py::dict d;
  d["id"] = t.id;
  d["name"] = t.name;
  d["kind"] = t.kind;
  d["status"] = std::string(workflow::to_string(t.status));
  d["attempts"] = t.attempts;
  d["result"] = t.result ? from_json(nlohmann::json::parse(*t.result)) : py::none();
  d["error"] = t.error;
  d["log_tail"] = t.log_tail;
  d["worker"] = t.worker;
  return d;
}

workflow::TaskSpec spec_of(const std::string& kind, const py::object& params, const std::string& name,
                           const std::string& model, const std::string& input_dataset,
                           const std::string& output_dataset, std::vector<int64_t> after, int64_t max_attempts) {
  workflow::TaskSpec spec;
  spec.kind = kind;
  spec.params = params.is_none() ? "{}" : to_json(params, "task params").dump();
  spec.name = name;
  spec.model = model;
  spec.input_dataset = input_dataset;
  spec.output_dataset = output_dataset;
  spec.after = std::move(after);
  spec.max_attempts = max_attempts;
  return spec;
}

// What a Python task function receives: its parameters, the task's keys, its log and whether
// its lease is still held.
struct PyTaskContext {
  workflow::TaskContext* ctx;
};

}  // namespace

void bind_workflow(py::module_& parent) {
  py::module_ m = parent.def_submodule("workflow", "Tasks written in Python, workers, the queue");

  py::class_<PyTaskContext>(m, "TaskContext")
      .def_property_readonly("params", [](const PyTaskContext& c) { return from_json(c.ctx->params); })
      .def_property_readonly("task_id", [](const PyTaskContext& c) { return c.ctx->task.id; })
      .def_property_readonly("attempt", [](const PyTaskContext& c) { return c.ctx->task.attempts; })
      .def_property_readonly("model", [](const PyTaskContext& c) { return c.ctx->task.model; })
      .def_property_readonly("input_dataset", [](const PyTaskContext& c) { return c.ctx->task.input_dataset; })
      .def_property_readonly("output_dataset", [](const PyTaskContext& c) { return c.ctx->task.output_dataset; })
      .def("log", [](PyTaskContext& c, const std::string& line) { c.ctx->log(line); })
      .def("lease_lost", [](const PyTaskContext& c) { return c.ctx->lease_lost(); });

  py::class_<workflow::TaskRegistry, std::shared_ptr<workflow::TaskRegistry>>(m, "TaskRegistry")
      .def(py::init<>())
      .def("register", [](workflow::TaskRegistry& r, const std::string& name, py::function fn, const std::string& help) {
        auto f = held(std::move(fn));
        workflow::TaskKind kind;
        kind.name = name;
        kind.help = help;
        kind.allow_unknown_params = true;  // a Python function checks its own
        kind.fn = [f](workflow::TaskContext& ctx) {
          py::gil_scoped_acquire gil;
          PyTaskContext wrapped{&ctx};
          try {
            return to_json((*f)(wrapped), "task result");
          } catch (py::error_already_set& e) {
            throw Error("Python task raised " + std::string(e.what()));  // fails the attempt, retried
          }
        };
        r.add(std::move(kind));
      }, py::arg("name"), py::arg("fn"), py::arg("help") = "",
         "fn(ctx) -> a JSON-able result; raising fails the attempt (retried up to max_attempts).")
      .def("names", &workflow::TaskRegistry::names);

  py::class_<workflow::Worker, std::shared_ptr<workflow::Worker>>(m, "Worker")
      .def(py::init([](const std::string& hub_url, std::shared_ptr<workflow::TaskRegistry> registry, int concurrency,
                       bool exit_when_idle, std::vector<std::string> tags, double lease_seconds) {
             workflow::WorkerOptions o;
             o.concurrency = concurrency;
             o.exit_when_idle = exit_when_idle;
             o.tags = std::move(tags);
             o.lease_seconds = lease_seconds;
             // The registry must outlive the worker: the worker's deleter holds it.
             auto* w = new workflow::Worker(hub_url, *registry, o);
             return std::shared_ptr<workflow::Worker>(w, [registry](workflow::Worker* p) {
               py::gil_scoped_release release;  // its threads may be finishing a Python task
               delete p;
             });
           }), py::arg("hub_url"), py::arg("registry"), py::arg("concurrency") = 1, py::arg("exit_when_idle") = false,
           py::arg("tags") = std::vector<std::string>{}, py::arg("lease_seconds") = 30.0)
      .def("run", [](workflow::Worker& w) {
        py::gil_scoped_release release;
        w.run();
      }, "Runs tasks until stop() (or, with exit_when_idle, until none is left).")
      .def("start", &workflow::Worker::start)
      .def("stop", &workflow::Worker::stop)
      .def("join", [](workflow::Worker& w) {
        py::gil_scoped_release release;
        w.join();
      })
      .def_property_readonly("id", &workflow::Worker::id)
      .def_property_readonly("stats", [](const workflow::Worker& w) {
        const workflow::WorkerStats s = w.stats();
        py::dict d;
        d["succeeded"] = s.succeeded;
        d["failed"] = s.failed;
        d["refused"] = s.refused;
        d["reconnects"] = s.reconnects;
        return d;
      });

  py::class_<workflow::Queue, std::shared_ptr<workflow::Queue>>(m, "Queue", "Queue(hub): tasks in the hub")
      .def(py::init([](std::shared_ptr<hub::Hub> hub) { return std::make_shared<workflow::Queue>(*hub); }),
           py::arg("hub"), py::keep_alive<1, 2>())
      .def("submit", [](workflow::Queue& q, const std::string& kind, py::object params, const std::string& name,
                        const std::string& model, const std::string& input_dataset, const std::string& output_dataset,
                        std::vector<int64_t> after, int64_t max_attempts) {
        const workflow::TaskSpec spec =
            spec_of(kind, params, name, model, input_dataset, output_dataset, std::move(after), max_attempts);
        py::gil_scoped_release release;
        return q.submit(spec);
      }, py::arg("kind"), py::arg("params") = py::none(), py::arg("name") = "", py::arg("model") = "",
         py::arg("input_dataset") = "", py::arg("output_dataset") = "", py::arg("after") = std::vector<int64_t>{},
         py::arg("max_attempts") = 3, "A task; returns its id.")
      .def("get", [](workflow::Queue& q, int64_t id) -> py::object {
        std::optional<workflow::Task> t;
        {
          py::gil_scoped_release release;
          t = q.get(id);
        }
        return t ? py::object(task_dict(*t)) : py::object(py::none());
      }, py::arg("task_id"))
      .def("wait", [](workflow::Queue& q, int64_t id, double timeout) -> py::object {
        std::optional<workflow::Task> t;
        {
          py::gil_scoped_release release;
          t = q.wait(id, std::chrono::milliseconds(static_cast<int64_t>(timeout * 1000)));
        }
        return t ? py::object(task_dict(*t)) : py::object(py::none());
      }, py::arg("task_id"), py::arg("timeout") = 3600.0, "The task once it has finished (None on timeout).")
      .def("cancel", &workflow::Queue::cancel, py::arg("task_id"), py::arg("reason") = "cancelled by the user");
}

}  // namespace strata::python
