// `strata launch -n N [--host H1,H2] [--oversubscribe] PROGRAM [ARGS...]`: starts a data-parallel
// job of N processes of PROGRAM, a thin wrapper over Open MPI's mpirun (docs/distributed.md).
// The process becomes mpirun, so the job's exit status is strata launch's.
#pragma once
#include <CLI/CLI.hpp>

namespace strata::cli {

void add_launch_commands(CLI::App& app);

}  // namespace strata::cli
