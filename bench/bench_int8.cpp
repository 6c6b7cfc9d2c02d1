// The `make run` CNN (examples/fashion_mnist_cnn_net.hpp, declared statically) at batch-1
// inference, float32 eager against its int8 twin from nn::quantize_int8, in one process: rounds
// alternate the two sides and each side's figure is its median round. Calibrated on real
// Fashion-MNIST images (speed does not depend on the weights, so the net is not trained).
// Prints a table with the ratio float32 / int8 (target: >= 2x, docs/quantization.md).
//   bench_int8 [--iters N=2000] [--rounds R=7] [--batches 1]
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "../examples/fashion_mnist_cnn_net.hpp"
#include "milliseconds.hpp"
#include "strata/nn/int8.hpp"

int main(int argc, char** argv) {
  using namespace strata;
  int iters = 2000, rounds = 7;
  std::vector<int64_t> batches = {1};
  CLI::App app("bench_int8: float32 vs int8 inference of the make-run CNN, side by side");
  app.add_option("--iters", iters, "calls per round at batch 1 (divided by the batch size)")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  app.add_option("--rounds", rounds, "alternating rounds per side; each side's figure is its median")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--batches", batches, "batch sizes, comma-separated")
      ->delimiter(',')
      ->check(CLI::Range(int64_t{1}, int64_t{256}))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  manual_seed(7);
  nn::Model net = fashion_mnist_cnn_static();
  net.eval();
  const data::FashionMnist ds = data::load_fashion_mnist();
  const Tensor images = (cast(narrow(ds.test_images, 0, 0, 512), kFloat32) / 255.0).reshape({512, 28, 28, 1});
  std::vector<Tensor> calibration;
  for (int64_t i = 0; i < 4; ++i) calibration.push_back(narrow(images, 0, i * 64, 64));
  std::shared_ptr<nn::Model> int8 = nn::quantize_int8(net, calibration).model;
  std::printf("%-16s %12s %12s %8s\n", "case", "float32_us", "int8_us", "ratio");
  for (int64_t batch : batches) {
    const Tensor x = narrow(images, 0, 256, batch);
    const int n = std::max<int>(1, iters / static_cast<int>(batch));
    NoGradGuard no_grad;
    // Microseconds per call over `calls` calls of `model`.
    auto us_per_call = [&](nn::Model& model, int calls) {
      return 1000 * milliseconds([&] {
               for (int i = 0; i < calls; ++i) model.run({x});
             }) /
             calls;
    };
    us_per_call(net, std::max(1, n / 10));  // warm-up: primitives, packed weights
    us_per_call(*int8, std::max(1, n / 10));
    std::vector<double> f, q;
    for (int r = 0; r < rounds; ++r) {
      f.push_back(us_per_call(net, n));
      q.push_back(us_per_call(*int8, n));
    }
    std::sort(f.begin(), f.end());
    std::sort(q.begin(), q.end());
    const double fm = f[f.size() / 2], qm = q[q.size() / 2];
    std::printf("%-16s %12.1f %12.1f %7.2fx\n", ("cnn_batch" + std::to_string(batch)).c_str(), fm, qm, fm / qm);
  }
}
