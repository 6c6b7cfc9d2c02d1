// bench_workflow: throughput of the workflow queue with no-op tasks (tasks/s) on SQLite and
// PostgreSQL with 1, 2 and 4 workers (each its own connections, like separate processes), the
// time a task spends between its lease and the start of its function, and, with tasks
// submitted one by one to workers already waiting, the time from submission to start.
//
//   bench_workflow [--tasks N] [--concurrency C] [--workers W] [--pg postgresql://user@host/db] [--no-sqlite]
//                  [--project NAME]
// (--workers: only W workers instead of 1, 2 and 4.)
// Without --pg only SQLite is measured. Each measurement uses a project of its own, unless
// --project names one for all (one filled beforehand with a million finished tasks, say). The
// durability is the server's (PostgreSQL: say which settings it runs with) and the hub's
// (SQLite: WAL, synchronous=NORMAL).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "strata/workflow/queue.hpp"
#include "strata/workflow/worker.hpp"

using namespace strata;
using namespace strata::workflow;

namespace {

struct Percentiles {
  double p50 = 0, p99 = 0;  // ms
};

Percentiles percentiles(std::vector<double> ms) {
  if (ms.empty()) return {};
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 99 / 100)]};
}

struct Result {
  double tasks_per_s = 0;
  Percentiles lease_to_start, submit_to_start;
};

struct Setup {
  std::string url, project;
  int workers = 1, concurrency = 1;
};

std::vector<std::unique_ptr<Worker>> start_workers(const Setup& s, const TaskRegistry& registry, bool exit_when_idle) {
  hub::HubOptions options;
  options.project = s.project;
  std::vector<std::unique_ptr<Worker>> pool;
  for (int i = 0; i < s.workers; ++i)
    pool.push_back(std::make_unique<Worker>(
        s.url, registry, WorkerOptions{.concurrency = s.concurrency, .exit_when_idle = exit_when_idle}, options));
  for (auto& w : pool) w->start();
  return pool;
}

// (started_at - leased_at) or (started_at - created_at) of the plan's tasks, in ms.
std::vector<double> gaps(Queue& queue, int64_t plan_id, int tasks, bool from_submit) {
  TaskFilter filter;
  filter.plan_id = plan_id;
  filter.limit = tasks;
  std::vector<double> out;
  for (const auto& t : queue.list(filter))
    if (t.started_at && t.leased_at) out.push_back((*t.started_at - (from_submit ? t.created_at : *t.leased_at)) * 1e3);
  return out;
}

Result measure(const Setup& s, int tasks) {
  hub::HubOptions options;
  options.project = s.project;
  auto hub = hub::Hub::open(s.url, options);
  Queue queue(hub);
  TaskRegistry registry;
  registry.add({.name = "noop", .fn = [](TaskContext&) { return nlohmann::json::object(); }});
  Result r;

  // Throughput: the tasks are all queued, then the workers drain them.
  Plan plan("bench");
  for (int i = 0; i < tasks; ++i) plan.add({.kind = "noop"});
  const PlanProgress submitted = queue.submit(plan);
  const auto t0 = std::chrono::steady_clock::now();
  for (auto& w : start_workers(s, registry, true)) w->join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const PlanProgress done = queue.plan_progress(submitted.plan_id);
  if (!done.all_succeeded()) std::fprintf(stderr, "warning: %s\n", done.summary().c_str());
  r.tasks_per_s = done.count(TaskStatus::succeeded) / seconds;
  r.lease_to_start = percentiles(gaps(queue, submitted.plan_id, tasks, false));

  // Latency: 200 tasks submitted one by one, 5 ms apart, to workers already waiting.
  auto pool = start_workers(s, registry, false);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Plan one("latency");
  one.add({.kind = "noop"});
  std::vector<double> waits;
  std::vector<int64_t> plans;
  for (int i = 0; i < 200; ++i) {
    plans.push_back(queue.submit(one).plan_id);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (int64_t id : plans) {
    queue.wait_plan(id, std::chrono::seconds(60));
    const auto g = gaps(queue, id, 1, true);
    waits.insert(waits.end(), g.begin(), g.end());
  }
  for (auto& w : pool) w->stop();
  for (auto& w : pool) w->join();
  r.submit_to_start = percentiles(waits);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int tasks = 2000, concurrency = 1;
  std::vector<int> worker_counts = {1, 2, 4};
  std::string pg, project;
  bool sqlite = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--no-sqlite") sqlite = false;
    else if (i + 1 < argc && a == "--tasks") tasks = std::stoi(argv[++i]);
    else if (i + 1 < argc && a == "--concurrency") concurrency = std::stoi(argv[++i]);
    else if (i + 1 < argc && a == "--pg") pg = argv[++i];
    else if (i + 1 < argc && a == "--workers") worker_counts = {std::stoi(argv[++i])};
    else if (i + 1 < argc && a == "--project") project = argv[++i];
  }
  const auto dir = std::filesystem::temp_directory_path() / ("bench_workflow_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::vector<std::pair<std::string, std::string>> backends;
  if (sqlite) backends.emplace_back("SQLite", (dir / "hub.db").string());
  if (!pg.empty()) backends.emplace_back("PostgreSQL", pg);

  std::printf("%-11s %7s %5s %6s %9s %25s %25s\n", "backend", "workers", "slots", "tasks", "tasks/s",
              "lease->start ms p50/p99", "submit->start ms p50/p99");
  int run = 0;
  for (const auto& [name, url] : backends)
    for (int workers : worker_counts) {
      // A fresh project per measurement: earlier runs' tasks do not slow the next.
      ++run;
      const Setup s{url, project.empty() ? "bench" + std::to_string(::getpid()) + "_" + std::to_string(run) : project,
                    workers, concurrency};
      const Result r = measure(s, tasks);
      std::printf("%-11s %7d %5d %6d %9.0f %15.3f / %7.3f %15.3f / %7.3f\n", name.c_str(), workers, concurrency, tasks,
                  r.tasks_per_s, r.lease_to_start.p50, r.lease_to_start.p99, r.submit_to_start.p50,
                  r.submit_to_start.p99);
      std::fflush(stdout);
    }
  std::filesystem::remove_all(dir);
  return 0;
}
