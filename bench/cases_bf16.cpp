// bf16 mixed precision training (docs/mixed_precision.md): TensorLayer's MLP and the tutorial CNN
// (dense 1024), Adam, batch 128, with Strata's AutocastBF16 against libtorch's CPU autocast to
// bfloat16 (forward under autocast, backward and step outside, as torch.autocast's docs say).
// The float32 figures to divide by are the network cases of the same run (--filter training).
// On a CPU without AVX512_BF16, Strata's scope needs STRATA_BF16_EMULATE=1 to run bf16 at all;
// this benchmark sets it, so what it times there is oneDNN's emulation (docs/benchmarks.md).
#include <ATen/autocast_mode.h>

#include <cstdlib>
#include <memory>

#include "cases.hpp"
#include "mlp_net.hpp"
#include "mnist_cnn.hpp"
#include "strata/core/autocast.hpp"
#include "strata/strata.hpp"

namespace bench {
namespace {

constexpr int64_t kBatch = 128;

// libtorch's autocast scope on the CPU (torch.autocast("cpu", dtype=torch.bfloat16)).
struct TorchCpuAutocast {
  TorchCpuAutocast() {
    at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
    at::autocast::set_cpu_enabled(true);
    at::autocast::increment_nesting();
  }
  ~TorchCpuAutocast() {
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    at::autocast::set_cpu_enabled(false);
  }
};

template <class StrataNet, class TorchNet>
Case mixed_case(const char* name, std::shared_ptr<StrataNet> net, TorchNet tnet, const strata::Tensor& x,
                const torch::Tensor& tx) {
  auto y = strata::randint(0, 10, {kBatch});
  auto ty = to_torch(y);
  (*net)(x);
  auto adam = std::make_shared<strata::optim::Adam>(net->trainable_weights());
  auto tadam = std::make_shared<torch::optim::Adam>(tnet->parameters());
  Case c{name, "AutocastBF16 (forward+backward) / torch CPU autocast bf16 (forward)", double(kBatch),
         Unit::samples_per_s};
  c.strata.run = [=] {
    adam->zero_grad();
    {
      strata::AutocastBF16 bf16;
      strata::cross_entropy((*net)(x), y).backward();
    }
    adam->step();
  };
  c.torch.run = [=]() mutable {
    torch::Tensor loss;
    {
      TorchCpuAutocast bf16;
      loss = torch::nn::functional::cross_entropy(tnet->forward(tx), ty);
    }
    tadam->zero_grad();
    loss.backward();
    tadam->step();
  };
  return c;
}

}  // namespace

std::vector<Case> bf16_cases() {
  if (!strata::cpu_has_native_bf16()) setenv("STRATA_BF16_EMULATE", "1", 0);
  auto x_flat = strata::rand({kBatch, 784});
  auto x_img = strata::rand({kBatch, 28, 28, 1});
  auto img_torch = to_torch(x_img).permute({0, 3, 1, 2}).contiguous(torch::MemoryFormat::ChannelsLast);
  return {
      mixed_case("MLP training bf16 mixed, Adam, batch 128", std::make_shared<StrataMlp>(), torch_mlp(), x_flat,
                 to_torch(x_flat)),
      mixed_case("TL CNN (dense 1024) training bf16 mixed, Adam", std::make_shared<StrataMnistCnn>(1024),
                 TorchMnistCnn(1024), x_img, img_torch),
  };
}

}  // namespace bench
