// Dashboard: `strata ui`, a read-only web page over a hub: projects, models and their versions
// with metrics, runs with their metric curves (Chart.js, served from Debian's libjs-chart.js),
// datasets, workflow plans and their tasks; the page polls JSON routes, so it follows a run as
// it trains. Pages: / (everything in a project), /run?id=N, /model?name=NAME; JSON: /api/...
// (docs/serving.md, "Dashboard"). Names are shown as text, never as markup; static files come
// from memory or from one directory by a plain file name; no route writes to the hub.
#pragma once
#include <chrono>
#include <memory>
#include <string>

namespace strata::serve {

struct DashboardOptions {
  std::string host = "127.0.0.1";  // loopback unless asked
  int port = 8080;                 // 0: any free port (bind() says which)
  // When set, every route needs "Authorization: Bearer <token>", the cookie strata_token, or
  // ?token=<token> (which sets that cookie, so that the page's own requests carry it); else 401.
  std::string token;
  std::string chart_js_dir = "/usr/share/javascript/chart.js";  // Debian's libjs-chart.js
  std::chrono::seconds io_timeout{30};
  int http_threads = 8;
};

class Dashboard {
 public:
  // Opens the hub (throws strata::Error when it cannot).
  Dashboard(const std::string& hub_url, DashboardOptions options);
  ~Dashboard();

  // Binds the listening socket; returns the port. Throws strata::Error naming the address.
  int bind();
  void serve();  // until stop()
  void stop();   // safe from another thread

 private:
  struct Routes;
  std::unique_ptr<Routes> routes_;
};

}  // namespace strata::serve
