// `strata ui --hub URL [--port P] [--host H] [--token T]`: the read-only web dashboard over a
// hub (projects, models, runs with their curves, datasets, plans) until SIGTERM or SIGINT
// (docs/serving.md, "Dashboard").
#pragma once
#include <CLI/CLI.hpp>

namespace strata::cli {

void add_ui_commands(CLI::App& app);

}  // namespace strata::cli
