// Strata vs PyTorch's C++ API (libtorch) on the same work, in one process, with the same
// number of OpenMP threads (both use GCC's libgomp, so one pool serves both).
//   bench_vs_libtorch [--budget SECONDS] [--filter SUBSTRING] [--breakdown REPS]
// --breakdown prints the training steps' per-layer times on both sides (breakdown.cpp) instead.
// Run through bench/run.sh (or `make bench`), which sets the environment libtorch needs.
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "breakdown.hpp"
#include "cases.hpp"
#include "strata/strata.hpp"

int main(int argc, char** argv) {
  double budget_s = 1.0;  // timed seconds per side per case
  std::string filter;
  int breakdown_reps = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--budget") == 0)
      budget_s = std::atof(argv[i + 1]);
    else if (std::strcmp(argv[i], "--filter") == 0)
      filter = argv[i + 1];
    else if (std::strcmp(argv[i], "--breakdown") == 0) {
      char* end = nullptr;
      const long reps = std::strtol(argv[i + 1], &end, 10);
      if (*end != '\0' || reps < 1 || reps > 1000) {
        std::fprintf(stderr, "bench_vs_libtorch: --breakdown takes 1..1000 repetitions, got '%s'\n", argv[i + 1]);
        return 2;
      }
      breakdown_reps = static_cast<int>(reps);
    }
  }

  const int threads = 2;
  omp_set_num_threads(threads);
  torch::set_num_threads(threads);
  strata::manual_seed(0);
  torch::manual_seed(0);

  std::printf("Strata vs libtorch %s, %d threads each, best of reps after warm-up.\n", TORCH_VERSION, threads);
  std::printf("ratio = libtorch time / strata time: > 1 means Strata is faster.\n\n");
  if (breakdown_reps > 0) {
    bench::print_breakdowns(breakdown_reps);
    return 0;
  }
  std::vector<bench::Case> cases;
  for (auto family : {bench::dense_cases, bench::conv_cases, bench::pointwise_cases, bench::network_cases,
                      bench::rnn_cases, bench::bf16_cases})
    for (auto& c : family())
      if (c.name.find(filter) != std::string::npos) cases.push_back(std::move(c));

  bench::print_header();
  for (const auto& c : cases) bench::print_row(c, bench::run(c, budget_s));
  bench::print_footer();
}
