// strata.hub: the life-cycle store from Python. Static models are saved with their architecture
// and load back ready to run (lifecycle/hub_models.hpp); runs log metrics; versions are found by a
// metric. Every call that touches the store releases the GIL.
#include "strata/hub/hub.hpp"
#include "bindings.hpp"
#include "strata/hub/run.hpp"
#include "strata/lifecycle/hub_models.hpp"

namespace strata::python {
namespace {

py::dict info_dict(const hub::ModelInfo& i) {
  py::dict d;
  d["id"] = i.id;
  d["name"] = i.name;
  d["version"] = i.version;
  d["metrics"] = i.meta.metrics;
  d["tags"] = i.meta.tags;
  d["values"] = i.meta.values;
  d["architecture"] = i.meta.architecture;
  d["sha256"] = i.sha256;
  d["size_bytes"] = i.size_bytes;
  d["created_at"] = i.created_at;
  if (i.meta.run_id) d["run_id"] = *i.meta.run_id;
  return d;
}

hub::Split split_of(const std::string& s) {
  if (s == "train") return hub::Split::train;
  if (s == "validation" || s == "val") return hub::Split::validation;
  if (s == "test") return hub::Split::test;
  throw Error("split: expected \"train\", \"validation\" or \"test\", got \"" + s + "\"");
}

hub::Order order_of(const std::string& s) {
  if (s == "descending" || s == "max") return hub::Order::descending;
  if (s == "ascending" || s == "min") return hub::Order::ascending;
  throw Error("order: expected \"descending\" (max) or \"ascending\" (min), got \"" + s + "\"");
}

}  // namespace

void bind_hub(py::module_& parent) {
  py::module_ m = parent.def_submodule("hub", "The model hub: versions, metrics, runs (SQLite or PostgreSQL)");

  py::class_<hub::Run, std::shared_ptr<hub::Run>>(m, "Run", "A training run: metrics by step and split, events.")
      .def_property_readonly("id", &hub::Run::id)
      .def("log", [](hub::Run& r, int64_t step, const std::string& split, const std::map<std::string, double>& values) {
        py::gil_scoped_release release;
        r.log(step, split_of(split), values);
      }, py::arg("step"), py::arg("split"), py::arg("values"), "run.log(3, 'train', {'loss': 0.2})")
      .def("event", [](hub::Run& r, const std::string& kind, py::object payload) {
        const std::string json = payload.is_none() ? "{}" : to_json(payload, "event payload").dump();
        py::gil_scoped_release release;
        r.event(kind, json);
      }, py::arg("kind"), py::arg("payload") = py::none())
      .def("flush", [](hub::Run& r) {
        py::gil_scoped_release release;
        r.flush();
      })
      .def("finish", [](hub::Run& r, const std::string& status) {
        py::gil_scoped_release release;
        r.finish(status);
      }, py::arg("status") = "finished");

  py::class_<hub::Hub, std::shared_ptr<hub::Hub>>(m, "Hub", "Hub.open('strata.db') or Hub.open('postgresql://...')")
      .def_static(
          "open",
          [](const std::string& url) {
            py::gil_scoped_release release;
            return std::make_shared<hub::Hub>(hub::Hub::open(url));
          },
          py::arg("url"))
      .def_property_readonly("url", &hub::Hub::url)
      .def(
          "save_model",
          [](hub::Hub& h, const std::string& name, const nn::Layer& model, py::object metrics,
             std::vector<std::string> tags, std::map<std::string, std::string> values, py::object run_id) {
            hub::ModelMeta meta;
            if (!metrics.is_none()) meta.metrics = metrics.cast<std::map<std::string, double>>();
            meta.tags = std::move(tags);
            meta.values = std::move(values);
            if (!run_id.is_none()) meta.run_id = run_id.cast<int64_t>();
            py::gil_scoped_release release;
            return lifecycle::save_model(h, name, model, std::move(meta));
          },
          py::arg("name"), py::arg("model"), py::arg("metrics") = py::none(),
          py::arg("tags") = std::vector<std::string>{}, py::arg("values") = std::map<std::string, std::string>{},
          py::arg("run_id") = py::none(),
          "A new version of `name` (a static model keeps its architecture); returns the version number.")
      .def(
          "load_model",
          [](hub::Hub& h, const std::string& name, int64_t version) {
            lifecycle::HubModel loaded;
            {
              py::gil_scoped_release release;
              loaded = lifecycle::load_static_model(h, name, version);
            }
            return py::make_tuple(loaded.model, info_dict(loaded.info));
          },
          py::arg("name"), py::arg("version") = hub::kLatest,
          "(model, info) of a static model's version (0: the latest), ready to run.")
      .def(
          "find_top_model",
          [](hub::Hub& h, const std::string& name, const std::string& metric, const std::string& order) -> py::object {
            std::optional<lifecycle::HubModel> found;
            const hub::Order o = order_of(order);
            {
              py::gil_scoped_release release;
              found = lifecycle::find_top_static_model(h, name, metric, o);
            }
            if (!found) return py::none();
            return py::make_tuple(found->model, info_dict(found->info));
          },
          py::arg("name"), py::arg("metric"), py::arg("order") = "descending",
          "(model, info) of the version with the best `metric`, or None.")
      .def(
          "list_models",
          [](hub::Hub& h, const std::string& name) {
            std::vector<hub::ModelInfo> infos;
            {
              py::gil_scoped_release release;
              infos = h.list_models(name);
            }
            py::list out;
            for (const auto& i : infos) out.append(info_dict(i));
            return out;
          },
          py::arg("name") = "")
      .def(
          "create_run",
          [](hub::Hub& h, const std::string& name, py::object config) {
            const std::string json = config.is_none() ? "{}" : to_json(config, "run config").dump();
            py::gil_scoped_release release;
            return std::make_shared<hub::Run>(h.create_run(name, json));
          },
          py::arg("name"), py::arg("config") = py::none())
      .def(
          "metric_history",
          [](hub::Hub& h, int64_t run_id, const std::string& name, const std::string& split) {
            std::vector<hub::MetricPoint> points;
            {
              py::gil_scoped_release release;
              points = h.metric_history(run_id, name, split_of(split));
            }
            py::list out;
            for (const auto& p : points) out.append(py::make_tuple(p.step, p.value));
            return out;
          },
          py::arg("run_id"), py::arg("name"), py::arg("split") = "train", "[(step, value), ...] of a run's metric.");
}

}  // namespace strata::python
