#include "ui_commands.hpp"

#include <filesystem>
#include <iostream>
#include <memory>

#include "existing_hub.hpp"
#include "option_checks.hpp"
#include "stop_signal.hpp"
#include "strata/serve/dashboard.hpp"

namespace strata::cli {
namespace {

struct UiArgs {
  std::string url;
  serve::DashboardOptions options;
  int64_t io_timeout_s = 30;
};

void run_ui(UiArgs& args) {
  StopSignal stop_signal;  // first: a signal once we say we listen must stop, not kill
  args.options.io_timeout = std::chrono::seconds(args.io_timeout_s);
  require_existing_hub(args.url);
  serve::Dashboard dashboard(args.url, args.options);
  // The page still works without Chart.js, but draws no curve: say so where the user looks.
  if (!std::filesystem::is_regular_file(std::filesystem::path(args.options.chart_js_dir) / "chart.min.js"))
    std::cerr << "strata ui: warning: no chart.min.js in '" << args.options.chart_js_dir
              << "': run curves will not be drawn (install libjs-chart.js, or pass --chart-js-dir)" << std::endl;
  const int port = dashboard.bind();
  std::cout << "strata ui: listening on http://" << args.options.host << ":" << port << "/" << std::endl;
  stop_signal.serve_until([&] { dashboard.serve(); }, [&] { dashboard.stop(); });
  std::cout << "strata ui: stopped" << std::endl;
}

}  // namespace

void add_ui_commands(CLI::App& app) {
  auto args = std::make_shared<UiArgs>();
  CLI::App* cmd = app.add_subcommand("ui", "A read-only web dashboard over a hub: models, runs and their curves, datasets, plans");
  cmd->add_option("--hub", args->url, "Hub URL: a SQLite path, sqlite://PATH or postgresql://...")->required();
  cmd->add_option("--host", args->options.host, "Address to listen on")->capture_default_str();
  cmd->add_option("--port", args->options.port, "Port to listen on; 0 picks a free one")->capture_default_str();
  cmd->add_option("--token", args->options.token, "Require the token (header, cookie or ?token=) on every route")
      ->envname("STRATA_UI_TOKEN");
  cmd->add_option("--chart-js-dir", args->options.chart_js_dir, "Where Chart.js is (Debian's libjs-chart.js)")
      ->capture_default_str();
  cmd->add_option("--io-timeout-s", args->io_timeout_s, "Longest to read a request or write a response")
      ->capture_default_str()->check(at_least(1));
  cmd->callback([args] { run_ui(*args); });
}

}  // namespace strata::cli
