#include "launch_commands.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "strata/core/error.hpp"

namespace strata::cli {
namespace {

struct LaunchArgs {
  int processes = 1;
  std::string hosts;
  bool oversubscribe = false;
};

[[noreturn]] void exec(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  throw Error("launch: cannot run " + command[0] + ": " + std::strerror(errno) +
              " (install openmpi-bin, or set STRATA_MPIRUN to the launcher)");
}

}  // namespace

void allow_open_mpi_as_root() {
  if (::geteuid() != 0 || std::getenv("OMPI_ALLOW_RUN_AS_ROOT") != nullptr) return;
  // Open MPI's mpirun refuses root unless told twice; most containers run as root. These are its
  // --allow-run-as-root as environment variables, which other launchers ignore.
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  std::fprintf(stderr, "strata: running as root: allowing Open MPI to run as root (OMPI_ALLOW_RUN_AS_ROOT)\n");
}

// Ours first, then the program and its arguments untouched.
std::vector<std::string> mpirun_command(int processes, const std::string& hosts, bool oversubscribe,
                                        const std::vector<std::string>& program) {
  const char* mpirun = std::getenv("STRATA_MPIRUN");  // another MPI launcher, or a full path
  std::vector<std::string> argv = {mpirun != nullptr && *mpirun != '\0' ? mpirun : "mpirun", "-n",
                                   std::to_string(processes)};
  if (!hosts.empty()) argv.insert(argv.end(), {"--host", hosts});
  if (oversubscribe) argv.push_back("--oversubscribe");
  argv.insert(argv.end(), program.begin(), program.end());
  return argv;
}

void add_launch_commands(CLI::App& app) {
  auto args = std::make_shared<LaunchArgs>();
  CLI::App* cmd = app.add_subcommand("launch", "Run PROGRAM as a data-parallel job of N processes (over mpirun)");
  cmd->add_option("-n,--processes", args->processes, "Processes in the job")->required()->check(CLI::Range(1, 65536));
  cmd->add_option("--host", args->hosts, "Hosts and their slots, as mpirun takes them (a:2,b:2)");
  cmd->add_flag("--oversubscribe", args->oversubscribe, "Allow more processes than cores");
  // Everything from the program on belongs to the program, options included.
  cmd->prefix_command();
  cmd->footer("After the options: PROGRAM [ARGS...], e.g. strata launch -n 2 ./train --epochs 3. "
              "STRATA_MPIRUN names another launcher.");
  cmd->callback([cmd, args] {
    const std::vector<std::string> program = cmd->remaining();
    STRATA_CHECK(!program.empty(), "launch: name the program to run, e.g. strata launch -n 2 ./train --epochs 3");
    allow_open_mpi_as_root();
    exec(mpirun_command(args->processes, args->hosts, args->oversubscribe, program));
  });
}

}  // namespace strata::cli
