#include "worker_commands.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <atomic>
#include <chrono>
#include <iostream>
#include <mutex>
#include <thread>

#include "strata/core/error.hpp"
#include "strata/workflow/worker.hpp"
#include "launch_commands.hpp"
#include "option_checks.hpp"

extern char** environ;

namespace strata::cli {

using nlohmann::json;
using workflow::ParamSpec;
using workflow::ParamType;
using workflow::TaskContext;

namespace {

// Sleeps in short steps so a task whose lease was lost stops early.
void sleep_unless_lost(TaskContext& ctx, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (auto now = std::chrono::steady_clock::now(); !ctx.lease_lost() && now < end; now = std::chrono::steady_clock::now())
    std::this_thread::sleep_for(std::min(std::chrono::duration<double>(0.02), std::chrono::duration<double>(end - now)));
}

json identity(const TaskContext& ctx) {
  return {{"task", ctx.task.id}, {"attempt", ctx.task.attempts}, {"worker", ctx.task.worker}};
}

// The task's "argv", whose program the worker's operator allowed (--allow-command).
std::vector<std::string> allowed_argv(const TaskContext& ctx, const std::vector<std::string>& allowed, const char* kind) {
  std::vector<std::string> argv = ctx.params.at("argv").get<std::vector<std::string>>();
  STRATA_CHECK(!argv.empty(), kind, ": \"argv\" is empty");
  STRATA_CHECK(std::find(allowed.begin(), allowed.end(), argv[0]) != allowed.end(), kind, ": \"", argv[0],
               "\" is not allowed on this worker (start it with --allow-command ", argv[0], ")");
  return argv;
}

// Runs argv[0] (found on PATH) with its output going to the log tail; throws on a non-zero exit.
json run_command(TaskContext& ctx, std::vector<std::string> argv) {
  int out[2];
  STRATA_CHECK(::pipe(out) == 0, "command: cannot make a pipe");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, out[1], 2);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  if (rc != 0) {
    ::close(out[0]);
    throw Error("command: cannot start \"" + argv[0] + "\": " + std::strerror(rc));
  }
  // Only the end is kept: the log tail stores the last ~4 KiB, and a long job may print gigabytes.
  constexpr size_t kKeep = 64 << 10;
  std::string output;
  size_t total = 0;
  char buf[4096];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) {
    output.append(buf, static_cast<size_t>(n));
    total += static_cast<size_t>(n);
    if (output.size() > 16 * kKeep) output.erase(0, output.size() - kKeep);
  }
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  for (size_t begin = 0; begin < output.size();) {
    size_t end = output.find('\n', begin);
    if (end == std::string::npos) end = output.size();
    ctx.log(output.substr(begin, end - begin));
    begin = end + 1;
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  STRATA_CHECK(code == 0, "command: \"", argv[0], "\" exited with status ", std::to_string(code));
  return {{"exit_status", 0}, {"output_bytes", total}};
}

volatile std::sig_atomic_t g_signal = 0;

struct WorkerArgs {
  std::string url = "strata.db";
  std::string project = "default";
  std::string id;
  std::vector<std::string> tags;
  std::vector<std::string> allowed;
  int concurrency = 1;
  double lease_seconds = 30;
  bool exit_when_idle = false;
};

void run_worker(const WorkerArgs& args) {
  workflow::TaskRegistry registry;
  register_builtin_kinds(registry, args.allowed);
  workflow::WorkerOptions options;
  options.id = args.id;
  options.tags = args.tags;
  options.concurrency = args.concurrency;
  options.lease_seconds = args.lease_seconds;
  options.exit_when_idle = args.exit_when_idle;
  std::mutex out_mu;
  options.on_event = [&](const std::string& line) {
    std::lock_guard lock(out_mu);
    std::cout << line << std::endl;  // one line per event, flushed: scripts and tests follow it
  };
  hub::HubOptions hub_options;
  hub_options.project = args.project;
  // A handler, not a blocked signal: threads made before main (OpenMP's) would take a blocked
  // signal's default action and kill the process.
  struct sigaction action {};
  action.sa_handler = [](int sig) { g_signal = sig; };
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGTERM, &action, nullptr);
  ::sigaction(SIGINT, &action, nullptr);
  workflow::Worker worker(args.url, registry, options, hub_options);
  {
    std::lock_guard lock(out_mu);
    std::cout << "worker " << worker.id() << " started: kinds " << registry.names().size() << ", concurrency "
              << args.concurrency << std::endl;
  }
  std::atomic<bool> finished{false};
  std::thread waiter([&] {
    while (!finished) {
      if (g_signal != 0) {
        {
          std::lock_guard lock(out_mu);
          std::cout << "stopping: finishing the running tasks" << std::endl;
        }
        worker.stop();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  worker.run();
  finished = true;
  waiter.join();
  const auto s = worker.stats();
  std::cout << "worker " << worker.id() << " stopped: " << s.succeeded << " succeeded, " << s.failed << " failed, "
            << s.refused << " refused, " << s.reconnects << " reconnects" << std::endl;
}

}  // namespace

void register_builtin_kinds(workflow::TaskRegistry& registry, const std::vector<std::string>& allowed_commands) {
  registry.add({.name = "noop", .fn = [](TaskContext& ctx) { return identity(ctx); }, .help = "does nothing"});
  registry.add({.name = "sleep",
                .params = {{.name = "seconds", .type = ParamType::number, .required = true}},
                .fn = [](TaskContext& ctx) {
                  sleep_unless_lost(ctx, ctx.params["seconds"].get<double>());
                  return identity(ctx);
                },
                .help = "sleeps, then succeeds"});
  registry.add({.name = "fail",
                .params = {{.name = "message", .type = ParamType::string, .default_value = "failed on purpose"}},
                .fn = [](TaskContext& ctx) -> json { throw Error(ctx.params["message"].get<std::string>()); },
                .help = "always throws its message"});
  registry.add({.name = "flaky",
                .params = {{.name = "failures", .type = ParamType::integer, .required = true}},
                .fn = [](TaskContext& ctx) {
                  STRATA_CHECK(ctx.task.attempts > ctx.params["failures"].get<int64_t>(), "flaky: attempt ",
                               std::to_string(ctx.task.attempts), " fails on purpose");
                  return identity(ctx);
                },
                .help = "fails its first `failures` attempts, then succeeds"});
  registry.add({.name = "command",
                .params = {{.name = "argv", .type = ParamType::array, .required = true}},
                .fn = [allowed_commands](TaskContext& ctx) {
                  return run_command(ctx, allowed_argv(ctx, allowed_commands, "command"));
                },
                .help = "runs an allow-listed program"});
  // A data-parallel job (docs/distributed.md) as one task: this worker becomes the job's
  // launcher, and mpirun starts the ranks here or on `hosts` (mpirun's own remote start).
  registry.add({.name = "data_parallel",
                .params = {{.name = "processes", .type = ParamType::integer, .required = true},
                           {.name = "argv", .type = ParamType::array, .required = true},
                           {.name = "hosts", .type = ParamType::string, .default_value = ""},
                           {.name = "oversubscribe", .type = ParamType::boolean, .default_value = false}},
                .fn = [allowed_commands](TaskContext& ctx) {
                  const int64_t n = ctx.params["processes"].get<int64_t>();
                  STRATA_CHECK(n >= 1 && n <= 65536, "data_parallel: \"processes\" must be 1 to 65536, got ", n);
                  allow_open_mpi_as_root();
                  json result = run_command(
                      ctx, mpirun_command(static_cast<int>(n), ctx.params["hosts"].get<std::string>(),
                                          ctx.params["oversubscribe"].get<bool>(),
                                          allowed_argv(ctx, allowed_commands, "data_parallel")));
                  result["processes"] = n;
                  return result;
                },
                .help = "runs an allow-listed program as an MPI job of `processes` ranks (strata launch)"});
}

void add_worker_commands(CLI::App& app) {
  auto args = std::make_shared<WorkerArgs>();
  auto* cmd = app.add_subcommand("worker", "Run a workflow worker: lease tasks from a hub's queue and run them");
  cmd->add_option("--hub", args->url, "Hub URL: a SQLite path or postgresql://...")->capture_default_str();
  cmd->add_option("--project", args->project, "Project of the hub")->capture_default_str();
  cmd->add_option("--id", args->id, "Worker id (default host:pid:n)");
  cmd->add_option("--tags", args->tags, "Tags this worker has (cpu,gpu,...)")->delimiter(',');
  cmd->add_option("--concurrency", args->concurrency,
                  "Tasks run at once, each on its share of the cores (OpenMP threads / N)")
      ->capture_default_str()
      ->check(at_least(1, 1024));
  cmd->add_option("--lease-seconds", args->lease_seconds, "Lease length; renewed every third of it")
      ->capture_default_str()
      ->check(at_least_number(1));
  cmd->add_option("--allow-command", args->allowed, "A program the `command` kind may run (repeat)");
  cmd->add_flag("--exit-when-idle", args->exit_when_idle, "Exit once no task it could run is left, now or after a retry delay");
  cmd->callback([=] { run_worker(*args); });
}

}  // namespace strata::cli
