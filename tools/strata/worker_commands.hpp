// `strata worker --hub URL [--tags cpu,gpu] [--concurrency N] [--lease-seconds S]`: runs a
// workflow worker process until SIGTERM or SIGINT (the running tasks finish and commit first).
// Task kinds are C++ functions, so the binary offers built-in kinds only (docs/workflow.md):
// noop, sleep, fail, flaky, and `command`, which runs only programs given with --allow-command.
#pragma once
#include <CLI/CLI.hpp>

#include "strata/workflow/registry.hpp"

namespace strata::cli {

void add_worker_commands(CLI::App& app);

// The built-in kinds; `command` runs only programs named in `allowed_commands`.
void register_builtin_kinds(workflow::TaskRegistry& registry, const std::vector<std::string>& allowed_commands);

}  // namespace strata::cli
