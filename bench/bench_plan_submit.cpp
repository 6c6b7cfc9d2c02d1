// bench_plan_submit: a grid-search plan's life in the queue at 10^4, 10^5 and 10^6 tasks on
// SQLite and a throw-away PostgreSQL cluster: submit (what `strata plan submit` does), status,
// cancel and clean, each timed. Linear work grows 10x per row; quadratic work 100x.
//
//   bench_plan_submit [--max N] [--no-postgres]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "hub/postgres_cluster.hpp"
#include "strata/hub/hub.hpp"
#include "strata/workflow/queue.hpp"
#include "workflow/grid_plan.hpp"

using namespace strata;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void run(const char* backend, const std::string& url, int n) {
  const workflow::Plan plan = workflow::testing::grid_plan(n);
  auto hub = hub::Hub::open(url);
  workflow::Queue queue(hub);
  auto t = Clock::now();
  const auto progress = queue.submit(plan);
  const double submit = since(t);
  t = Clock::now();
  queue.plan_progress(progress.plan_id);
  const double status = since(t);
  t = Clock::now();
  queue.cancel_plan(progress.plan_id);
  const double cancel = since(t);
  t = Clock::now();
  queue.clean_plan(progress.plan_id);
  const double clean = since(t);
  std::printf("%-8s %9d tasks  submit %7.2f s (%8.0f tasks/s)  status %6.2f s  cancel %6.2f s  clean %6.2f s\n", backend,
              n, submit, n / submit, status, cancel, clean);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int max = 1'000'000;
  bool postgres = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--max") && i + 1 < argc) max = std::stoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--no-postgres")) postgres = false;
    else {
      std::fprintf(stderr, "usage: bench_plan_submit [--max N] [--no-postgres]\n");
      return 2;
    }
  }
  const auto dir = std::filesystem::temp_directory_path() / ("bench_plan_submit_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  hub::testing::PostgresCluster* cluster = postgres ? hub::testing::PostgresCluster::get() : nullptr;
  if (postgres && !cluster) std::printf("postgres skipped: %s\n", hub::testing::PostgresCluster::why().c_str());
  for (int n = 10'000; n <= max; n *= 10) {
    run("sqlite", (dir / ("hub" + std::to_string(n) + ".db")).string(), n);
    if (cluster) {
      const std::string db = "plans" + std::to_string(n);
      cluster->create_database(db);
      run("postgres", cluster->url(db), n);
      cluster->drop_database(db);
    }
  }
  std::filesystem::remove_all(dir);
}
