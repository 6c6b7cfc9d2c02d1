// `strata launch -n N [--host H1,H2] [--oversubscribe] PROGRAM [ARGS...]`: starts a data-parallel
// job of N processes of PROGRAM, a thin wrapper over Open MPI's mpirun (docs/distributed.md).
// The process becomes mpirun, so the job's exit status is strata launch's.
#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace strata::cli {

// mpirun (or $STRATA_MPIRUN) -n N [--host HOSTS] [--oversubscribe] PROGRAM ARGS...: the job's
// command line, shared with the worker's data_parallel kind.
std::vector<std::string> mpirun_command(int processes, const std::string& hosts, bool oversubscribe,
                                        const std::vector<std::string>& program);

// As root (most containers), sets Open MPI's variables that let mpirun run, with a one-line
// warning on stderr; nothing otherwise, or when the user set them already.
void allow_open_mpi_as_root();

void add_launch_commands(CLI::App& app);

}  // namespace strata::cli
