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

// Runs argv[0] (found on PATH) with its output going to the log tail; throws on a non-zero exit.
json run_command(TaskContext& ctx, const std::vector<std::string>& allowed) {
  std::vector<std::string> argv = ctx.params.at("argv").get<std::vector<std::string>>();
  STRATA_CHECK(!argv.empty(), "command: \"argv\" is empty");
  STRATA_CHECK(std::find(allowed.begin(), allowed.end(), argv[0]) != allowed.end(), "command: \"", argv[0],
               "\" is not allowed on this worker (start it with --allow-command ", argv[0], ")");
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
  std::string output, line;
  char buf[4096];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) output.append(buf, static_cast<size_t>(n));
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
  return {{"exit_status", 0}, {"output_bytes", output.size()}};
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
                .fn = [allowed_commands](TaskContext& ctx) { return run_command(ctx, allowed_commands); },
                .help = "runs an allow-listed program"});
}

void add_worker_commands(CLI::App& app) {
  auto args = std::make_shared<WorkerArgs>();
  auto* cmd = app.add_subcommand("worker", "Run a workflow worker: lease tasks from a hub's queue and run them");
  cmd->add_option("--hub", args->url, "Hub URL: a SQLite path or postgresql://...")->capture_default_str();
  cmd->add_option("--project", args->project, "Project of the hub")->capture_default_str();
  cmd->add_option("--id", args->id, "Worker id (default host:pid:n)");
  cmd->add_option("--tags", args->tags, "Tags this worker has (cpu,gpu,...)")->delimiter(',');
  cmd->add_option("--concurrency", args->concurrency, "Tasks run at once")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--lease-seconds", args->lease_seconds, "Lease length; renewed every third of it")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--allow-command", args->allowed, "A program the `command` kind may run (repeat)");
  cmd->add_flag("--exit-when-idle", args->exit_when_idle, "Exit once no task it could run is left, now or after a retry delay");
  cmd->callback([=] { run_worker(*args); });
}

}  // namespace strata::cli
