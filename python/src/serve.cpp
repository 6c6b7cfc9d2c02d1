// strata.serve from Python: `strata serve` (the Open Inference Protocol v2 over HTTP with
// dynamic batching) for hub models, on a thread of this process until stop().
#include <thread>

#include "bindings.hpp"
#include "strata/serve/dynamic_batcher.hpp"
#include "strata/serve/inference_server.hpp"
#include "strata/serve/model_repository.hpp"

namespace strata::python {
namespace {

class Server {
 public:
  Server(const std::string& hub_url, const std::vector<std::string>& models, const std::string& host, int port,
         int64_t max_batch_size, int64_t max_queue_delay_us, int workers, const std::string& token, int poll_ms)
      : repository_(hub_url, specs(models), workers), batcher_(batching(max_batch_size, max_queue_delay_us, workers)),
        server_(repository_, batcher_, serve::ServerOptions{.host = host, .port = port, .token = token}) {
    port_ = server_.bind();
    repository_.poll_every(std::chrono::milliseconds(poll_ms));
    thread_ = std::thread([this] { server_.serve(); });
  }
  ~Server() { stop(); }
  int port() const { return port_; }
  void stop() {
    if (!thread_.joinable()) return;
    server_.stop();
    thread_.join();
  }

 private:
  static std::vector<serve::ModelSpec> specs(const std::vector<std::string>& models) {
    STRATA_CHECK(!models.empty(), "serve: name at least one model");
    std::vector<serve::ModelSpec> out;
    for (const auto& m : models) out.push_back(serve::parse_model_spec(m));
    return out;
  }
  static serve::BatchingOptions batching(int64_t max_batch_size, int64_t delay_us, int workers) {
    serve::BatchingOptions o;
    o.max_batch_size = max_batch_size;
    o.max_queue_delay = std::chrono::microseconds(delay_us);
    o.workers = workers;
    return o;
  }

  serve::ModelRepository repository_;
  serve::DynamicBatcher batcher_;
  serve::InferenceServer server_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace

void bind_serve(py::module_& parent) {
  py::module_ m = parent.def_submodule("serve", "strata serve for hub models (Open Inference Protocol v2)");
  py::class_<Server>(m, "Server", "Serves hub models on http://host:port until stop(); a context manager too.")
      .def(py::init([](const std::string& hub_url, std::vector<std::string> models, const std::string& host, int port,
                       int64_t max_batch_size, int64_t max_queue_delay_us, int workers, const std::string& token,
                       int poll_ms) {
             py::gil_scoped_release release;
             return std::make_unique<Server>(hub_url, models, host, port, max_batch_size, max_queue_delay_us, workers,
                                             token, poll_ms);
           }), py::arg("hub_url"), py::arg("models"), py::arg("host") = "127.0.0.1", py::arg("port") = 0,
           py::arg("max_batch_size") = 32, py::arg("max_queue_delay_us") = 0, py::arg("workers") = 1,
           py::arg("token") = "", py::arg("poll_ms") = 1000)
      .def_property_readonly("port", &Server::port)
      .def("stop", [](Server& s) {
        py::gil_scoped_release release;
        s.stop();
      })
      .def("__enter__", [](Server& s) -> Server& { return s; }, py::return_value_policy::reference)
      .def("__exit__", [](Server& s, py::args) {
        py::gil_scoped_release release;
        s.stop();
      });
}

}  // namespace strata::python
