// TensorLayer's MLP tutorial network on both sides: 784-800-800-10 with relu and dropout 0.5.
// Shared by the network cases and the bf16 mixed-precision cases.
#pragma once
#include <torch/torch.h>

#include "strata/strata.hpp"

namespace bench {

struct StrataMlp : strata::nn::Module {
  strata::nn::Dense a{800, strata::nn::relu}, b{800, strata::nn::relu}, out{10};
  strata::nn::Dropout drop{0.5};
  strata::Tensor forward(const strata::Tensor& x) override { return out(drop(b(drop(a(x))))); }
};

inline torch::nn::Sequential torch_mlp() {
  namespace tnn = torch::nn;
  return tnn::Sequential(tnn::Linear(784, 800), tnn::ReLU(), tnn::Dropout(0.5), tnn::Linear(800, 800), tnn::ReLU(),
                         tnn::Dropout(0.5), tnn::Linear(800, 10));
}

}  // namespace bench
