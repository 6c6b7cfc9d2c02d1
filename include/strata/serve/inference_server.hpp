// InferenceServer: the Open Inference Protocol v2 over HTTP/REST (the protocol of Triton and
// KServe) for the models of a ModelRepository, their requests run by a DynamicBatcher.
// Routes: GET /v2/health/live, /v2/health/ready, /v2 (server metadata), /v2/models/NAME[/versions/V]
// (model metadata), .../ready; POST .../infer (JSON tensors and the binary tensor data extension).
// Every refusal is a JSON {"error": "..."} with a 4xx status (503 when overloaded or stopping),
// and the server keeps serving. docs/serving.md has the details.
#pragma once
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "strata/serve/dynamic_batcher.hpp"
#include "strata/serve/model_repository.hpp"

namespace strata::serve {

struct ServerOptions {
  std::string host = "127.0.0.1";  // loopback unless asked: a model server is not public by default
  int port = 8000;                 // 0: any free port (bind() says which)
  std::string token;               // when set, every route needs "Authorization: Bearer <token>" (else 401)
  size_t max_body_bytes = size_t{64} << 20;  // larger requests get 413
  std::chrono::seconds io_timeout{30};       // to read a request or write a response
  std::chrono::milliseconds request_timeout{30'000};  // queued plus running; then 503
  int http_threads = 64;  // connections served at once (each waits for its batch)
};

class InferenceServer {
 public:
  // Both must outlive the server.
  InferenceServer(ModelRepository& models, DynamicBatcher& batcher, ServerOptions options);
  ~InferenceServer();

  // Binds the listening socket; returns the port (the free one chosen for port 0). Throws
  // strata::Error naming the address when it cannot.
  int bind();
  // Serves until stop(); returns once every request in flight has been answered.
  void serve();
  // Stops accepting connections and lets the batcher run what is queued without waiting for
  // fuller batches. Safe from another thread (a signal-waiting one).
  void stop();

 private:
  struct Routes;
  std::unique_ptr<Routes> routes_;
};

}  // namespace strata::serve
