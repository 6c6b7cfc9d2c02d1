// The `make run` CNN (examples/fashion_mnist_cnn_net.hpp, declared statically) at inference,
// eager (Model::run in eval mode without autograd) against nn::compile's plan, in one process:
// rounds alternate the two sides and each side's figure is its median round. Prints a table with
// the ratio eager / compiled per batch size (the target at batch 1: >= 1.5x, docs/compiled_models.md).
//   bench_compiled [--iters N=2000] [--rounds R=7] [--batches 1,32]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../examples/fashion_mnist_cnn_net.hpp"
#include "strata/nn/compiled_model.hpp"
#include "strata/nn/eval_scope.hpp"

namespace {

template <class Fn>
double bench_compiled_us_per_call(Fn&& fn, int iters) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) fn();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / iters;
}

double bench_compiled_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace strata;
  int iters = 2000, rounds = 7;
  std::vector<int64_t> batches = {1, 32};
  for (int i = 1; i < argc; ++i) try {
      const std::string a = argv[i];
      const bool has_value = i + 1 < argc;
      if (a == "--help" || a == "-h") {
        std::printf(
            "bench_compiled [--iters N=2000] [--rounds R=7] [--batches 1,32]\n"
            "  eager vs compiled inference of the make-run CNN; iters are scaled down by the batch size\n");
        return 0;
      } else if (a == "--iters" && has_value) {
        iters = std::stoi(argv[++i]);
      } else if (a == "--rounds" && has_value) {
        rounds = std::stoi(argv[++i]);
      } else if (a == "--batches" && has_value) {
        batches.clear();
        for (const char* p = argv[++i]; *p; p += std::strcspn(p, ",") + (p[std::strcspn(p, ",")] ? 1 : 0))
          batches.push_back(std::stoll(p));
      } else {
        std::fprintf(stderr, "bench_compiled: unknown or incomplete argument '%s' (see --help)\n", a.c_str());
        return 2;
      }
    } catch (const std::exception&) {  // stoi / stoll on a value that is not a number
      std::fprintf(stderr, "bench_compiled: '%s' is not a number (see --help)\n", argv[i]);
      return 2;
    }
  if (iters < 1 || iters > 10000000 || rounds < 1 || rounds > 1000 || batches.empty()) {
    std::fprintf(stderr, "bench_compiled: --iters must be in [1, 1e7], --rounds in [1, 1000], --batches non-empty\n");
    return 2;
  }
  for (int64_t b : batches)
    if (b < 1 || b > 4096) {
      std::fprintf(stderr, "bench_compiled: batch sizes must be in [1, 4096], got %lld\n", static_cast<long long>(b));
      return 2;
    }
  manual_seed(7);
  nn::Model net = fashion_mnist_cnn_static();
  nn::CompiledModel fast = nn::compile(net);
  std::printf("%-16s %12s %12s %8s\n", "case", "eager_us", "compiled_us", "ratio");
  for (int64_t batch : batches) {
    const Tensor x = rand({batch, 28, 28, 1});
    const int n = std::max<int>(1, iters / static_cast<int>(batch));
    auto eager = [&] {
      NoGradGuard no_grad;
      nn::EvalScope eval(net);
      return net.run({x})[0];
    };
    auto compiled = [&] { return fast.run(x); };
    bench_compiled_us_per_call(eager, std::max(1, n / 10));  // warm-up: primitives, plans, caches
    bench_compiled_us_per_call(compiled, std::max(1, n / 10));
    std::vector<double> e, c;
    for (int r = 0; r < rounds; ++r) {
      e.push_back(bench_compiled_us_per_call(eager, n));
      c.push_back(bench_compiled_us_per_call(compiled, n));
    }
    const double em = bench_compiled_median(e), cm = bench_compiled_median(c);
    const std::string name = "cnn batch " + std::to_string(batch);
    std::printf("%-16s %12.1f %12.1f %7.2fx\n", name.c_str(), em, cm, em / cm);
  }
}
