// strata: the command line of the Strata library. Groups: `strata hub ...`, `strata worker`,
// `strata plan ...`, `strata serve`, `strata ui`, `strata launch`, `strata devices`, `strata detect` (see `strata <group> --help`). Errors print one line to stderr and exit with status 1.
#include <iostream>
#include <new>

#include <CLI/CLI.hpp>

#include "detect_commands.hpp"
#include "device_commands.hpp"
#include "hub_commands.hpp"
#include "launch_commands.hpp"
#include "plan_commands.hpp"
#include "serve_commands.hpp"
#include "strata/version.hpp"
#include "ui_commands.hpp"
#include "worker_commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Strata: models, runs and weights from the command line"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("strata ") + strata::kVersion);
  strata::cli::add_hub_commands(app);
  strata::cli::add_worker_commands(app);
  strata::cli::add_plan_commands(app);
  strata::cli::add_serve_commands(app);
  strata::cli::add_launch_commands(app);
  strata::cli::add_ui_commands(app);
  strata::cli::add_device_commands(app);
  strata::cli::add_detect_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // a command's own exit status (`strata plan wait`)
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;  // --help is a ParseError too
  } catch (const std::bad_alloc&) {  // from outside Strata's allocator (a container growing, a library)
    std::cerr << "strata: error: out of memory: the machine's memory or this process's limit (ulimit -v, a cgroup) "
                 "is exhausted\n";
    return 1;
  } catch (const std::exception& e) {
    // Messages may echo the --hub URL: never let its password through.
    std::string url;
    for (const char* group : {"hub", "worker", "plan", "serve", "ui", "detect"})
      if (auto* cmd = app.get_subcommand(group); cmd && cmd->get_option("--hub")->count() > 0)
        url = cmd->get_option("--hub")->as<std::string>();
    std::string message = strata::cli::hide_password(e.what(), url);
    for (char& c : message)
      if (c == '\n' || c == '\t') c = ' ';  // one line, for scripts and logs
    std::cerr << "strata: error: " << message << '\n';
    return 1;
  }
  return 0;
}
