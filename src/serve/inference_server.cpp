#include "strata/serve/inference_server.hpp"

#include <httplib.h>

#include <algorithm>
#include <charconv>

#include <nlohmann/json.hpp>

#include "strata/core/intra_op_threads.hpp"
#include "strata/serve/datatype.hpp"
#include "strata/serve/decode_budget.hpp"
#include "strata/serve/infer_request.hpp"
#include "strata/serve/infer_response.hpp"
#include "strata/serve/request_error.hpp"
#include "http_listener.hpp"
#include "http_thread_pool.hpp"
#include "json_replies.hpp"
#include "prometheus_text.hpp"
#include "same_secret.hpp"

namespace strata::serve {
namespace {

using nlohmann::json;
using detail::same_secret;
using detail::send_error;
using detail::send_json;

constexpr const char* kServerName = "strata";
constexpr const char* kServerVersion = STRATA_VERSION;  // the project's, from CMake
// /v2/models/NAME[/versions/VERSION]; the name may hold anything but '/'.
constexpr const char* kModelPath = R"(/v2/models/([^/]+)(?:/versions/([^/]+))?)";

// A decimal count from a header or a path; nothing for anything else (signs, spaces, overflow).
std::optional<uint64_t> parse_count(const std::string& text) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

std::optional<int64_t> requested_version(const httplib::Request& req) {
  if (req.matches.size() < 3 || !req.matches[2].matched) return std::nullopt;
  const std::string text = req.matches[2].str();
  const auto version = parse_count(text);
  if (!version || *version < 1 || *version > static_cast<uint64_t>(INT64_MAX))
    throw RequestError(400, "the model version should be a number of 1 or more, got '" + text + "'");
  return static_cast<int64_t>(*version);
}

json duration(const DurationStat& stat) { return {{"count", stat.count}, {"ns", stat.ns}}; }

// One version's $model_stat of the statistics extension.
json statistics(const ServedVersion& model) {
  const StatisticsSnapshot s = model.statistics.snapshot();
  json batches = json::array();
  for (const auto& [rows, batch] : s.batches)
    batches.push_back({{"batch_size", rows},
                       {"compute_input", duration(batch.compute_input)},
                       {"compute_infer", duration(batch.compute_infer)},
                       {"compute_output", duration(batch.compute_output)}});
  return {{"name", model.name},
          {"version", std::to_string(model.version)},
          {"last_inference", s.last_inference_ms},
          {"inference_count", s.inference_count},
          {"execution_count", s.execution_count},
          {"inference_stats",
           {{"success", duration(s.success)},
            {"fail", duration(s.fail)},
            {"queue", duration(s.queue)},
            {"compute_input", duration(s.compute_input)},
            {"compute_infer", duration(s.compute_infer)},
            {"compute_output", duration(s.compute_output)},
            {"cache_hit", duration({})}}},  // Strata has no response cache
          {"batch_stats", std::move(batches)}};
}

json signatures(const std::vector<TensorSignature>& tensors) {
  json list = json::array();
  for (const auto& t : tensors)
    list.push_back({{"name", t.name}, {"datatype", datatype_name(t.dtype)}, {"shape", t.shape.vec()}});
  return list;
}

}  // namespace

struct InferenceServer::Routes {
  ModelRepository& models;
  DynamicBatcher& batcher;
  ServerOptions options;
  DecodeBudget decode_budget{options.max_body_bytes};  // a request of the largest size decodes alone
  HttpServer http;
  HttpListener listener{http};
  int port = 0;

  Routes(ModelRepository& m, DynamicBatcher& b, ServerOptions o) : models(m), batcher(b), options(std::move(o)) {
    const int threads = options.http_threads;
    http.new_task_queue = [threads] { return new detail::HttpThreadPool(threads); };
    http.set_payload_max_length(options.max_body_bytes);
    http.set_read_timeout(options.io_timeout);
    http.set_write_timeout(options.io_timeout);
    http.set_keep_alive_max_count(1000);  // a client reuses its connection; httplib's 5 would reconnect often
    // An answer is one send (HttpServer), but with Nagle's algorithm an answer sent while the
    // previous one is not yet acknowledged would wait for the client's delayed ACK, 40 ms.
    http.set_tcp_nodelay(true);
    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      if (options.token.empty() || same_secret(req.get_header_value("Authorization"), "Bearer " + options.token))
        return httplib::Server::HandlerResponse::Unhandled;
      res.set_header("WWW-Authenticate", "Bearer");
      send_error(res, 401, "this server needs the header 'Authorization: Bearer <token>'");
      return httplib::Server::HandlerResponse::Handled;
    });
    // Refusals httplib makes itself (no such route, body over the limit, unreadable request).
    http.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
      std::string message = "HTTP " + std::to_string(res.status);
      if (res.status == 404) message = "no route " + req.method + " " + req.path;
      if (res.status == 413) message = "the request body is larger than the server's limit";
      send_error(res, res.status, message);
      return httplib::Server::HandlerResponse::Handled;
    }));
    detail::answer_exceptions_as_json(http);

    http.Get("/v2/health/live", [](const httplib::Request&, httplib::Response& res) { send_json(res, 200, {{"live", true}}); });
    http.Get("/v2/health/ready", [](const httplib::Request&, httplib::Response& res) { send_json(res, 200, {{"ready", true}}); });
    http.Get("/v2", [](const httplib::Request&, httplib::Response& res) {
      send_json(res, 200, {{"name", kServerName}, {"version", kServerVersion},
                           {"extensions", {"binary_tensor_data", "statistics"}}});
    });
    // Before the model routes: they would take "stats" for a model's name.
    http.Get("/v2/models/stats", [this](const httplib::Request&, httplib::Response& res) {
      send_json(res, 200, model_stats(std::nullopt, std::nullopt));
    });
    http.Get(std::string(kModelPath) + "/stats", [this](const httplib::Request& req, httplib::Response& res) {
      send_json(res, 200, model_stats(req.matches[1].str(), requested_version(req)));
    });
    http.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(detail::prometheus_text(served(std::nullopt, std::nullopt),
                                              {.too_large = http.refused_too_large(), .too_slow = http.refused_too_slow()}),
                      detail::kPrometheusTextType);
    });
    http.Get(kModelPath, [this](const httplib::Request& req, httplib::Response& res) {
      const auto model = models.find(req.matches[1].str(), requested_version(req));
      send_json(res, 200, {{"name", model->name}, {"versions", {std::to_string(model->version)}}, {"platform", kServerName},
                           {"inputs", signatures(model->inputs)}, {"outputs", signatures(model->outputs)}});
    });
    http.Get(std::string(kModelPath) + "/ready", [this](const httplib::Request& req, httplib::Response& res) {
      const auto model = models.find(req.matches[1].str(), requested_version(req));
      send_json(res, 200, {{"name", model->name}, {"ready", true}});
    });
    // The body is read here rather than by httplib, which refuses a body labelled
    // application/x-www-form-urlencoded (what `curl -d` sends) over 8 KB before any handler runs:
    // the protocol's body is JSON or binary whatever the label, and --max-body-bytes its limit.
    http.Post(std::string(kModelPath) + "/infer",
              [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& read) {
                std::string body;
                if (!read_body(req, res, read, &body)) return;
                infer(req, body, res);
              });
    // Every other request with a body is read the same bounded way, then refused: httplib would
    // read it itself, inflated without a bound, before finding that no route takes it.
    const auto no_route = [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& read) {
      if (read_body(req, res, read, nullptr)) throw RequestError(404, "no route " + req.method + " " + req.path);
    };
    http.Post(".*", no_route);
    http.Put(".*", no_route);
    http.Patch(".*", no_route);
    http.Delete(".*", no_route);
  }

  // Every version served (of `name`, when given; that version, when given), each once though
  // two --model flags may name it.
  std::vector<std::shared_ptr<const ServedVersion>> served(const std::optional<std::string>& name,
                                                           std::optional<int64_t> version) const {
    if (name) models.find(*name, version);  // a 404 naming the versions served
    std::vector<std::shared_ptr<const ServedVersion>> listed;
    for (auto& model : models.all()) {
      if ((name && model->name != *name) || (version && model->version != *version)) continue;
      if (std::find(listed.begin(), listed.end(), model) == listed.end()) listed.push_back(std::move(model));
    }
    return listed;
  }

  json model_stats(const std::optional<std::string>& name, std::optional<int64_t> version) const {
    json stats = json::array();
    for (const auto& model : served(name, version)) stats.push_back(statistics(*model));
    return {{"model_stats", std::move(stats)}};
  }

  // Reads the body into `body`, or to no use when it is null (a request refused whatever it
  // holds, still read to its end: a body left unread would be taken for the connection's next
  // request). False when it could not be read (over --max-body-bytes: res has httplib's 413).
  // Multipart bodies, which no client of the protocol sends, are read without being kept, then
  // refused.
  bool read_body(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& read,
                 std::string* body) const {
    const bool multipart = req.is_multipart_form_data();
    // httplib limits the bytes received; a compressed body (Content-Encoding: gzip) reaches here
    // inflated, and 1 MB of gzip can hold 1 GB: the limit holds for what it inflates to.
    size_t inflated = 0;
    bool too_large = false;
    const auto take = [&](const char* data, size_t n) {
      too_large = n > options.max_body_bytes - inflated;
      if (too_large) return false;
      inflated += n;
      if (body != nullptr && !multipart) body->append(data, n);
      return true;
    };
    const bool complete = multipart ? read([](const httplib::MultipartFormData&) { return true; }, take) : read(take);
    if (too_large) {
      res.set_header("Connection", "close");  // the rest of the body is not read
      throw RequestError(413, "the request body, decompressed, is larger than the server's limit of " +
                                  std::to_string(options.max_body_bytes) + " bytes");
    }
    if (!complete) {
      if (res.status < 400) throw RequestError(400, "the request body could not be read in full");
      return false;
    }
    if (multipart) throw RequestError(415, "the request body should be JSON or binary tensor data, not multipart/form-data");
    return true;
  }

  void infer(const httplib::Request& req, const std::string& body, httplib::Response& res) {
    const auto arrived = std::chrono::steady_clock::now();
    // Decoding and encoding tensors here must not give this HTTP thread an OpenMP team: only the
    // batch workers' teams may use the cores (strata/serve/dynamic_batcher.hpp).
    const IntraOpThreadLimit one_thread(1);
    const auto model = models.find(req.matches[1].str(), requested_version(req));
    try {
      answer(req, body, res, model);
      model->statistics.record_request(true, std::chrono::steady_clock::now() - arrived);
    } catch (...) {
      model->statistics.record_request(false, std::chrono::steady_clock::now() - arrived);
      throw;
    }
  }

  // The request's tensors, decoded within the server's budget of JSON bytes decoded at once: only
  // the JSON part counts, binary tensor data is copied, not decoded (strata/serve/decode_budget.hpp).
  InferRequest decode(const std::string& body, std::optional<size_t> json_length, const ServedVersion& model) {
    const DecodeBudget::Hold decoding(decode_budget, std::min(json_length.value_or(body.size()), body.size()),
                                      options.request_timeout);
    if (!decoding.held())
      throw RequestError(503, "the server is decoding other large JSON requests; retry later, or send the tensors "
                              "as binary data");
    return parse_infer_request(body, json_length, model);
  }

  // Decodes the request, runs it through the batcher and encodes the outputs.
  void answer(const httplib::Request& req, const std::string& body, httplib::Response& res,
              const std::shared_ptr<const ServedVersion>& model) {
    std::optional<size_t> json_length;
    if (req.has_header("Inference-Header-Content-Length")) {
      const std::string text = req.get_header_value("Inference-Header-Content-Length");
      const auto length = parse_count(text);
      if (!length) throw RequestError(400, "Inference-Header-Content-Length should be a byte count, got '" + text + "'");
      json_length = *length;
    }
    InferRequest request = decode(body, json_length, *model);
    auto outputs = batcher.submit(model, request.inputs);
    if (outputs.wait_for(options.request_timeout) != std::future_status::ready)
      throw RequestError(503, "the request did not finish within " + std::to_string(options.request_timeout.count()) +
                                  " ms (queued behind others); retry later");
    const InferResponse response = encode_infer_response(*model, request, outputs.get());
    if (response.json_length) {
      res.set_header("Inference-Header-Content-Length", std::to_string(*response.json_length));
      res.set_content(response.body, "application/octet-stream");
    } else {
      res.set_content(response.body, "application/json");
    }
  }
};

InferenceServer::InferenceServer(ModelRepository& models, DynamicBatcher& batcher, ServerOptions options)
    : routes_(std::make_unique<Routes>(models, batcher, std::move(options))) {}

InferenceServer::~InferenceServer() = default;

int InferenceServer::bind() {
  auto& r = *routes_;
  return r.port = r.listener.bind(r.options.host, r.options.port, "serve");
}

void InferenceServer::serve() { routes_->listener.serve(); }

void InferenceServer::stop() {
  routes_->listener.stop();
  routes_->batcher.drain();
}

}  // namespace strata::serve
