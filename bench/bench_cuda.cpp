// The CUDA backend's speed on a GPU, the work of bench/bench_cuda_torch.py (PyTorch eager on the
// same GPU) in Strata: scripts/gpu-check run prints both and their ratios (docs/cuda.md). Each
// line: `strata <case> <seconds per call>`, the best of 5 timed runs after a warm-up; the GPU is
// waited for by reading one value back, the copy that ends every real step too.
//   bench_cuda [--quick] [--device D] [--sgemm-only]
//     --quick: small shapes; --device cpu: the same code on the CPU, to check the program where
//     there is no GPU; --sgemm-only: the product alone, named sgemm_tf32 when STRATA_CUDA_TF32=1
//     (the math mode is chosen when the backend loads, so TF32 is timed by a second run)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "fashion_mnist_cnn_net.hpp"
#include "strata/strata.hpp"

using namespace strata;

namespace {

void wait_for(const Tensor& t) { (void)t.reshape({-1}).narrow(0, 0, 1).item_double(); }

// Seconds per call of `step` (which returns a tensor it produced), best of 5 runs of `calls`.
double time_per_call(int calls, const std::function<Tensor()>& step) {
  wait_for(step());  // warm-up: kernels loaded, the allocator's cache filled
  double best = 1e30;
  for (int run = 0; run < 5; ++run) {
    const auto start = std::chrono::steady_clock::now();
    Tensor last;
    for (int i = 0; i < calls; ++i) last = step();
    wait_for(last);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls);
  }
  return best;
}

void report(const char* name, double seconds) { std::printf("strata %s %.9g\n", name, seconds); }

// One Adam step of `net` on (x, y): forward, cross-entropy, backward, update.
std::function<Tensor()> training_step(nn::Layer& net, optim::Adam& adam, const Tensor& x, const Tensor& y) {
  return [&net, &adam, x, y] {
    adam.zero_grad();
    Tensor loss = cross_entropy(net(x), y);
    loss.backward();
    adam.step();
    return loss;
  };
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, sgemm_only = false;
  Device device = kCUDA;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    else if (std::strcmp(argv[i], "--sgemm-only") == 0) sgemm_only = true;
    else if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc) device = Device::parse(argv[++i]);
    else return std::fprintf(stderr, "usage: bench_cuda [--quick] [--device D] [--sgemm-only]\n"), 2;
  }
  if (!device_available(device.type)) {
    std::printf("bench_cuda: no GPU: %s\n", device_unavailable_reason(device.type).c_str());
    return 0;
  }
  manual_seed(1);
  const int64_t n = quick ? 256 : 4096;
  const Tensor a = randn({n, n}).to(device), b = randn({n, n}).to(device);
  const char* tf32 = std::getenv("STRATA_CUDA_TF32");
  report(tf32 && std::strcmp(tf32, "1") == 0 ? "sgemm_tf32" : "sgemm",
         time_per_call(quick ? 2 : 10, [&] { return matmul(a, b); }));
  if (sgemm_only) return 0;

  const int64_t batch = quick ? 4 : 32, side = quick ? 14 : 56;
  nn::Conv2d conv(64, {3, 3});
  conv.to(device);
  const Tensor images = randn({batch, side, side, 64}).to(device);
  report("conv3x3_forward", time_per_call(quick ? 2 : 20, [&] {
           NoGradGuard no_grad;
           return conv(images);
         }));
  const Tensor leaf = images.detach().requires_grad_();
  report("conv3x3_forward_backward", time_per_call(quick ? 2 : 10, [&] {
           Tensor y = conv(leaf);
           sum(y).backward();
           return leaf.grad();
         }));

  const int64_t rows = 128;
  nn::Sequential mlp({std::make_shared<nn::Dense>(800, nn::relu), std::make_shared<nn::Dense>(800, nn::relu),
                      std::make_shared<nn::Dense>(10)});
  mlp.to(device);
  const Tensor mlp_x = randn({rows, 784}).to(device), labels = randint(0, 10, {rows}).to(device);
  mlp(mlp_x);
  optim::Adam mlp_adam(mlp.trainable_weights(), {.lr = 1e-3});
  report("mlp_training_step", time_per_call(quick ? 2 : 50, training_step(mlp, mlp_adam, mlp_x, labels)));
  const Tensor one = randn({1, 784}).to(device);
  report("mlp_batch1_inference", time_per_call(quick ? 2 : 200, [&] {
           NoGradGuard no_grad;
           return mlp(one);
         }));

  FashionMnistCnn cnn;
  cnn.to(device);
  const Tensor cnn_x = randn({rows, 28, 28, 1}).to(device);
  cnn(cnn_x);
  optim::Adam cnn_adam(cnn.trainable_weights(), {.lr = 1e-3});
  report("cnn_training_step", time_per_call(quick ? 2 : 20, training_step(cnn, cnn_adam, cnn_x, labels)));

  const Tensor tiny = randn({16}).to(device);
  report("add_per_op", time_per_call(quick ? 10 : 2000, [&] { return tiny + tiny; }));
  return 0;
}
