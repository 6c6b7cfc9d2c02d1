// `strata plan submit FILE.json | status ID | wait ID | cancel ID | tasks ID`: workflow plans
// (DAGs of tasks, docs/workflow.md) in a hub's queue.
#pragma once
#include <CLI/CLI.hpp>

namespace strata::cli {

void add_plan_commands(CLI::App& app);

}  // namespace strata::cli
