// bench_search: a random hyper-parameter search of N trials that each sleep T seconds, run by W
// in-process workers that are already polling (each on its own connection, as separate
// machines would be), timed from the submission of the search plan to the commit of its last
// trial, against the ideal ceil(N / W) * T. Every trial saves a model version with its metric,
// as real trials do, so the excess is the queue's whole cost: leases, commits, idle polling.
// SQLite, and a throw-away PostgreSQL cluster (or --pg URL). Besides the total it prints when
// the last worker got its first trial (after submission), a trial's lease-to-commit time beyond
// its sleep, and the gap between a worker's commit and its next lease (medians).
//
//   bench_search [--trials 40] [--seconds 1] [--workers 4] [--backend sqlite|postgres|both] [--pg URL]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "hub/postgres_cluster.hpp"
#include "strata/core/factory.hpp"
#include "strata/workflow/queue.hpp"
#include "strata/workflow/search.hpp"
#include "strata/workflow/worker.hpp"

using namespace strata;
using namespace strata::workflow;

namespace {

struct Setup {
  int64_t trials = 40;
  double seconds = 1;
  int workers = 4;
};

double unix_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void measure(const std::string& backend, const std::string& url, const Setup& setup) {
  TaskRegistry kinds;
  kinds.add(trial_kind("sleep_trial", [&](TaskContext&, const Trial& t) {
    std::this_thread::sleep_for(std::chrono::duration<double>(setup.seconds));
    const double lr = t.config["lr"];
    return TrialResult{{{"w", from_vector(std::vector<double>{lr})}}, {{"loss", std::abs(std::log10(lr) + 2)}}};
  }));
  std::vector<std::unique_ptr<Worker>> pool;
  for (int i = 0; i < setup.workers; ++i) pool.push_back(std::make_unique<Worker>(url, kinds));
  for (auto& w : pool) w->start();
  // Let the workers connect and settle into idle polling (at most 0.1 s apart), as a standing
  // cluster's workers are when a search arrives.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));

  auto hub = hub::Hub::open(url);
  Queue queue(hub);
  SearchSpec spec{.name = "short-trials", .kind = "sleep_trial", .model = "sleeper",
                  .space = SearchSpace::from_json({{"lr", {{"type", "float"}, {"min", 1e-4}, {"max", 1}, {"log", true}}}}),
                  .method = SearchMethod::random, .trials = setup.trials, .seed = 1};
  const double t0 = unix_seconds();
  const PlanProgress submitted = queue.submit(search_plan(spec));
  const PlanProgress done = queue.wait_plan(submitted.plan_id);
  for (auto& w : pool) w->stop();
  for (auto& w : pool) w->join();
  if (!done.all_succeeded()) std::fprintf(stderr, "warning: %s\n", done.summary().c_str());

  TaskFilter filter;
  filter.plan_id = submitted.plan_id;
  filter.limit = setup.trials;
  // Each worker's trials as (leased, committed), unix seconds.
  std::map<std::string, std::vector<std::pair<double, double>>> by_worker;
  for (const auto& t : queue.list(filter))
    if (t.leased_at && t.finished_at) by_worker[t.worker].emplace_back(*t.leased_at, *t.finished_at);
  double last = t0, all_started = t0;
  std::vector<double> beyond, gaps;  // ms: a trial's lease-to-commit beyond its sleep; commit to the next lease
  for (auto& [worker, trials] : by_worker) {
    std::sort(trials.begin(), trials.end());
    all_started = std::max(all_started, trials.front().first);
    last = std::max(last, trials.back().second);
    for (size_t i = 0; i < trials.size(); ++i) {
      beyond.push_back((trials[i].second - trials[i].first - setup.seconds) * 1e3);
      if (i > 0) gaps.push_back((trials[i].first - trials[i - 1].second) * 1e3);
    }
  }
  const double total = last - t0;
  const double ideal = std::ceil(double(setup.trials) / setup.workers) * setup.seconds;
  std::printf("%-11s %7lld %6.2f %8d %9.3f %9.3f %9.2f%% %16.1f %14.2f %10.2f\n", backend.c_str(),
              static_cast<long long>(setup.trials), setup.seconds, setup.workers, total, ideal,
              100 * (total - ideal) / ideal, (all_started - t0) * 1e3, median(beyond), median(gaps));
}

}  // namespace

int main(int argc, char** argv) {
  Setup setup;
  std::string backend = "both", pg;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--trials" && has_value) setup.trials = std::stoll(argv[++i]);
    else if (a == "--seconds" && has_value) setup.seconds = std::stod(argv[++i]);
    else if (a == "--workers" && has_value) setup.workers = std::stoi(argv[++i]);
    else if (a == "--backend" && has_value) backend = argv[++i];
    else if (a == "--pg" && has_value) pg = argv[++i];
    else {
      std::fprintf(stderr, "usage: bench_search [--trials 40] [--seconds 1] [--workers 4] "
                           "[--backend sqlite|postgres|both] [--pg URL]\n");
      return 2;
    }
  }
  const auto dir = std::filesystem::temp_directory_path() / ("bench_search_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::printf("%-11s %7s %6s %8s %9s %9s %10s %16s %14s %10s\n", "backend", "trials", "T s", "workers", "total s",
              "ideal s", "overhead", "all started ms", "trial +ms p50", "gap ms p50");
  try {
    if (backend != "postgres") measure("SQLite", (dir / "hub.db").string(), setup);
    if (backend != "sqlite" && pg.empty()) {
      if (auto* cluster = hub::testing::PostgresCluster::get()) {
        const std::string db = "bench_search_" + std::to_string(::getpid());
        cluster->create_database(db);
        pg = cluster->url(db);
      } else {
        std::printf("PostgreSQL  skipped: %s\n", hub::testing::PostgresCluster::why().c_str());
      }
    }
    if (backend != "sqlite" && !pg.empty()) measure("PostgreSQL", pg, setup);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_search: %s\n", e.what());
    std::filesystem::remove_all(dir);
    return 1;
  }
  std::filesystem::remove_all(dir);
  return 0;
}
