// The `make run` CNN (examples/fashion_mnist_cnn_net.hpp, declared statically) at inference,
// eager (Model::run in eval mode without autograd) against nn::compile's plan, in one process:
// rounds alternate the two sides and each side's figure is its median round. Prints a table with
// the ratio eager / compiled per batch size (the target at batch 1: >= 1.5x, docs/compiled_models.md).
// --train times the training step instead (zero_grad, forward in training mode, softmax
// cross-entropy, backward, Adam's step; random labels), eager against nn::compile_training
// (the target: >= 1.25x at the example's batch, 128). --net tl: TensorLayer's tutorial CNN
// instead (conv 5x5 1->32 relu, pool, conv 5x5 32->64 relu, pool, dense 3136->1024 relu, dense 10).
//   bench_compiled [--iters N=2000] [--rounds R=7] [--batches 1,32] [--train] [--net cnn|tl]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "../examples/fashion_mnist_cnn_net.hpp"
#include "strata/nn/compiled_model.hpp"
#include "strata/nn/compiled_training.hpp"
#include "strata/nn/eval_scope.hpp"

namespace {

template <class Fn>
double bench_compiled_us_per_call(Fn&& fn, int iters) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) fn();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / iters;
}

// TensorLayer's tutorial CNN (bench/breakdown.cpp's tl_cnn), declared statically.
strata::nn::Model bench_compiled_tl_cnn() {
  using namespace strata::nn;
  auto x = Input({-1, 28, 28, 1}, "image");
  auto h = MaxPool2d()(Conv2d(32, {5, 5}, relu)(x));
  h = Flatten()(MaxPool2d()(Conv2d(64, {5, 5}, relu)(h)));
  return Model(x, Dense(10)(Dense(1024, relu)(h)), "tl_tutorial_cnn");
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
  bool train = false, batches_given = false, tl = false;
  for (int i = 1; i < argc; ++i) try {
      const std::string a = argv[i];
      const bool has_value = i + 1 < argc;
      if (a == "--help" || a == "-h") {
        std::printf(
            "bench_compiled [--iters N=2000] [--rounds R=7] [--batches 1,32] [--train] [--net cnn|tl]\n"
            "  eager vs compiled inference of the make-run CNN; iters are scaled down by the batch size\n"
            "  --train: the training step (Adam) instead, batches 32,128 unless given\n"
            "  --net tl: TensorLayer's tutorial CNN instead of the make-run CNN\n");
        return 0;
      } else if (a == "--iters" && has_value) {
        iters = std::stoi(argv[++i]);
      } else if (a == "--rounds" && has_value) {
        rounds = std::stoi(argv[++i]);
      } else if (a == "--train") {
        train = true;
      } else if (a == "--net" && has_value &&
                 (std::strcmp(argv[i + 1], "cnn") == 0 || std::strcmp(argv[i + 1], "tl") == 0)) {
        tl = std::strcmp(argv[++i], "tl") == 0;
      } else if (a == "--batches" && has_value) {
        batches_given = true;
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
  if (train && !batches_given) batches = {32, 128};
  manual_seed(7);
  nn::Model net = tl ? bench_compiled_tl_cnn() : fashion_mnist_cnn_static();
  nn::CompiledModel fast = nn::compile(net);
  nn::CompiledTrainStep step = nn::compile_training(net);
  optim::Adam adam(net.trainable_weights(), {.lr = 1e-4});
  net.train();
  std::printf("%-22s %12s %12s %8s\n", "case", "eager_us", "compiled_us", "ratio");
  for (int64_t batch : batches) {
    const Tensor x = rand({batch, 28, 28, 1});
    std::vector<int64_t> labels;
    for (int64_t i = 0; i < batch; ++i) labels.push_back(i * 7 % 10);
    const Tensor y = from_vector(labels, {batch});
    const int n = std::max<int>(1, iters / static_cast<int>(batch));
    std::function<void()> eager, compiled;
    if (train) {
      eager = [&] {
        adam.zero_grad();
        cross_entropy(net(x), y).backward();
        adam.step();
      };
      compiled = [&] {
        adam.zero_grad();
        Tensor out = step.forward(x).requires_grad_(true);
        cross_entropy(out, y).backward();
        step.backward(out.grad());
        adam.step();
      };
    } else {
      eager = [&] {
        NoGradGuard no_grad;
        nn::EvalScope eval(net);
        net.run({x});
      };
      compiled = [&] { fast.run(x); };
    }
    bench_compiled_us_per_call(eager, std::max(1, n / 10));  // warm-up: primitives, plans, caches
    bench_compiled_us_per_call(compiled, std::max(1, n / 10));
    std::vector<double> e, c;
    for (int r = 0; r < rounds; ++r) {
      e.push_back(bench_compiled_us_per_call(eager, n));
      c.push_back(bench_compiled_us_per_call(compiled, n));
    }
    const double em = bench_compiled_median(e), cm = bench_compiled_median(c);
    const std::string name =
        std::string(tl ? "tl " : "") + (train ? "cnn train batch " : "cnn batch ") + std::to_string(batch);
    std::printf("%-22s %12.1f %12.1f %7.2fx\n", name.c_str(), em, cm, em / cm);
  }
}
