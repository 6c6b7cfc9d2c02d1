#include "strata/serve/dashboard.hpp"

#include <httplib.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "embedded_files.hpp"
#include "hub_view.hpp"
#include "http_listener.hpp"
#include "http_thread_pool.hpp"
#include "json_replies.hpp"
#include "same_secret.hpp"
#include "strata/serve/request_error.hpp"

namespace strata::serve {
namespace {

using nlohmann::json;
using detail::same_secret;
using detail::send_error;
using detail::send_json;

constexpr const char* kTokenCookie = "strata_token";

std::string cookie(const httplib::Request& req, const std::string& name) {
  const std::string header = req.get_header_value("Cookie");
  for (size_t at = 0; at < header.size();) {
    const size_t end = std::min(header.find(';', at), header.size());
    std::string pair = header.substr(at, end - at);
    pair.erase(0, pair.find_first_not_of(' '));
    if (pair.starts_with(name + "=")) return pair.substr(name.size() + 1);
    at = end + 1;
  }
  return "";
}

int64_t run_id_of(const std::string& text) {
  int64_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size() || id < 1)
    throw RequestError(400, "a run id should be a number of 1 or more, got '" + text.substr(0, 40) + "'");
  return id;
}

// A file of `dir` named by a plain file name: no '/', no leading dot, nothing that resolves
// (through a link) outside `dir`. Empty when there is none.
std::optional<std::string> static_file(const std::string& dir, const std::string& name) {
  static const std::regex plain("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
  if (!std::regex_match(name, plain)) return std::nullopt;
  std::error_code ec;
  const auto root = std::filesystem::canonical(dir, ec);
  if (ec) return std::nullopt;
  const auto file = std::filesystem::canonical(root / name, ec);
  if (ec || file.parent_path() != root || !std::filesystem::is_regular_file(file, ec)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

struct Dashboard::Routes {
  DashboardOptions options;
  HubView view;
  HttpServer http;
  HttpListener listener{http};
  int port = 0;

  Routes(const std::string& hub_url, DashboardOptions o) : options(std::move(o)), view(hub_url) {
    const int threads = options.http_threads;
    http.new_task_queue = [threads] { return new detail::HttpThreadPool(threads); };
    http.set_payload_max_length(64 << 10);  // read-only: no route takes a body
    http.set_read_timeout(options.io_timeout);
    http.set_write_timeout(options.io_timeout);
    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) { return authorize(req, res); });
    http.set_post_routing_handler([](const httplib::Request&, httplib::Response& res) {
      // The page runs only its own script and talks only to this server.
      res.set_header("Content-Security-Policy",
                     "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'");
      res.set_header("X-Content-Type-Options", "nosniff");
      res.set_header("Cache-Control", "no-store");
    });
    http.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
      send_error(res, res.status, res.status == 404 ? "no route " + req.method + " " + req.path : "HTTP " + std::to_string(res.status));
      return httplib::Server::HandlerResponse::Handled;
    }));
    detail::answer_exceptions_as_json(http);

    for (const char* page : {"/", "/run", "/model"})
      http.Get(page, [](const httplib::Request& req, httplib::Response& res) { send_ui_file(res, "index.html"); });
    http.Get("/ui/([^/]+)", [](const httplib::Request& req, httplib::Response& res) { send_ui_file(res, req.matches[1].str()); });
    http.Get("/chart.js/([^/]+)", [this](const httplib::Request& req, httplib::Response& res) {
      const auto bytes = static_file(options.chart_js_dir, req.matches[1].str());
      if (!bytes) throw RequestError(404, "no file " + req.path);
      res.set_content(*bytes, "text/javascript; charset=utf-8");
    });
    auto project = [](const httplib::Request& req) { return req.get_param_value("project"); };
    http.Get("/api/projects", [this](const httplib::Request&, httplib::Response& res) { send_json(res, 200, view.projects()); });
    http.Get("/api/models", [=, this](const httplib::Request& req, httplib::Response& res) {
      send_json(res, 200, view.models(project(req)));
    });
    http.Get("/api/runs", [=, this](const httplib::Request& req, httplib::Response& res) {
      send_json(res, 200, view.runs(project(req)));
    });
    http.Get("/api/runs/([^/]+)", [this](const httplib::Request& req, httplib::Response& res) {
      send_json(res, 200, view.run(run_id_of(req.matches[1].str())));
    });
    http.Get("/api/datasets", [=, this](const httplib::Request& req, httplib::Response& res) {
      send_json(res, 200, view.datasets(project(req)));
    });
    http.Get("/api/plans", [=, this](const httplib::Request& req, httplib::Response& res) {
      send_json(res, 200, view.plans(project(req)));
    });
  }

  httplib::Server::HandlerResponse authorize(const httplib::Request& req, httplib::Response& res) const {
    if (options.token.empty()) return httplib::Server::HandlerResponse::Unhandled;
    const std::string wanted = options.token;
    const bool by_query = same_secret(req.get_param_value("token"), wanted);
    if (same_secret(req.get_header_value("Authorization"), "Bearer " + wanted) ||
        same_secret(cookie(req, kTokenCookie), wanted) || by_query) {
      if (by_query)  // the page's scripts and JSON requests then carry it
        res.set_header("Set-Cookie", std::string(kTokenCookie) + "=" + wanted + "; Path=/; HttpOnly; SameSite=Strict");
      return httplib::Server::HandlerResponse::Unhandled;
    }
    res.set_header("WWW-Authenticate", "Bearer");
    send_error(res, 401, "this dashboard needs its token: open /?token=<token>, or send 'Authorization: Bearer <token>'");
    return httplib::Server::HandlerResponse::Handled;
  }

  static void send_ui_file(httplib::Response& res, const std::string& name) {
    for (const auto& f : detail::embedded_ui_files())
      if (f.name == name) {
        res.set_content(std::string(f.bytes), std::string(f.content_type));
        return;
      }
    throw RequestError(404, "no file /ui/" + name.substr(0, 100));
  }
};

Dashboard::Dashboard(const std::string& hub_url, DashboardOptions options)
    : routes_(std::make_unique<Routes>(hub_url, std::move(options))) {}

Dashboard::~Dashboard() = default;

int Dashboard::bind() {
  auto& r = *routes_;
  return r.port = r.listener.bind(r.options.host, r.options.port, "ui");
}

void Dashboard::serve() { routes_->listener.serve(); }

void Dashboard::stop() { routes_->listener.stop(); }

}  // namespace strata::serve
