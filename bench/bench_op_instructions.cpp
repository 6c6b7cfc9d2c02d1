// bench_op_instructions: the per-op overhead loop of bench_vs_libtorch (10k additions of two 4x4
// tensors, no grad) on its own, for counting instructions under
//   valgrind --tool=callgrind --toggle-collect='run_loop*' build/bench/bench_op_instructions
// which is stable on a loaded machine where wall-clock timings are not (docs/benchmarks.md).
#include <cstdio>

#include "strata/strata.hpp"

// noinline: callgrind's --toggle-collect counts this function and everything it calls.
__attribute__((noinline)) void run_loop(const strata::Tensor& a, const strata::Tensor& b, int n) {
  for (int i = 0; i < n; ++i) strata::add(a, b);
}

int main() {
  strata::NoGradGuard no_grad;
  const strata::Tensor a = strata::randn({4, 4}), b = strata::randn({4, 4});
  run_loop(a, b, 100);  // warm the allocator's cache
  run_loop(a, b, 10'000);
  std::printf("done: 10000 adds of 4x4\n");
}
