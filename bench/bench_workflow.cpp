// bench_workflow: throughput of the workflow queue with no-op tasks (tasks/s) on SQLite and
// PostgreSQL with 1, 2 and 4 workers (each its own connection, like separate processes), and
// the time a task spends between its lease and the start of its function (ms).
//
//   bench_workflow [--tasks N] [--pg postgresql://user@host/db]
// Without --pg only SQLite is measured. The PostgreSQL database is emptied of tasks first.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "strata/workflow/queue.hpp"
#include "strata/workflow/worker.hpp"

using namespace strata;
using namespace strata::workflow;

namespace {

struct Result {
  double tasks_per_s = 0;
  double lease_to_start_ms = 0;  // median
};

Result measure(const std::string& url, const std::string& project, int workers, int tasks) {
  hub::HubOptions options;
  options.project = project;
  auto hub = hub::Hub::open(url, options);
  Queue queue(hub);
  Plan plan("bench");
  for (int i = 0; i < tasks; ++i) plan.add({.kind = "noop"});
  const PlanProgress submitted = queue.submit(plan);

  TaskRegistry registry;
  registry.add({.name = "noop", .fn = [](TaskContext&) { return nlohmann::json::object(); }});
  std::vector<std::unique_ptr<Worker>> pool;
  for (int i = 0; i < workers; ++i)
    pool.push_back(std::make_unique<Worker>(url, registry, WorkerOptions{.exit_when_idle = true}, options));
  const auto t0 = std::chrono::steady_clock::now();
  for (auto& w : pool) w->start();
  for (auto& w : pool) w->join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const PlanProgress done = queue.plan_progress(submitted.plan_id);
  if (!done.all_succeeded()) std::fprintf(stderr, "warning: %s\n", done.summary().c_str());
  TaskFilter filter;
  filter.plan_id = submitted.plan_id;
  filter.limit = tasks;
  std::vector<double> gaps;
  for (const auto& t : queue.list(filter))
    if (t.started_at && t.leased_at) gaps.push_back((*t.started_at - *t.leased_at) * 1e3);
  std::sort(gaps.begin(), gaps.end());
  return {done.count(TaskStatus::succeeded) / seconds, gaps.empty() ? 0 : gaps[gaps.size() / 2]};
}

}  // namespace

int main(int argc, char** argv) {
  int tasks = 2000;
  std::string pg;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--tasks") tasks = std::stoi(argv[i + 1]);
    else if (a == "--pg") pg = argv[i + 1];
  }
  const auto dir = std::filesystem::temp_directory_path() / ("bench_workflow_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::vector<std::pair<std::string, std::string>> backends = {{"SQLite", (dir / "hub.db").string()}};
  if (!pg.empty()) backends.emplace_back("PostgreSQL", pg);

  std::printf("%-11s %8s %8s %12s %22s\n", "backend", "workers", "tasks", "tasks/s", "lease->start ms (p50)");
  int run = 0;
  for (const auto& [name, url] : backends)
    for (int workers : {1, 2, 4}) {
      // A fresh project per measurement: earlier runs' tasks do not slow the next.
      const Result r = measure(url, "bench" + std::to_string(::getpid()) + "_" + std::to_string(++run), workers, tasks);
      std::printf("%-11s %8d %8d %12.0f %22.3f\n", name.c_str(), workers, tasks, r.tasks_per_s, r.lease_to_start_ms);
    }
  std::filesystem::remove_all(dir);
  return 0;
}
