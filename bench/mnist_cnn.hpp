// The MNIST CNN of the network cases and of --breakdown, on both sides: 5x5 convolutions of 32
// and 64 filters, each with relu, "same" padding and a 2x2 max pool, then a dense relu layer of
// `hidden` units and dense 10, on 28x28x1 images.
//   hidden 256: TensorLayer's MNIST tutorial CNN (docs/user/tutorial.rst, dropout left out).
//   hidden 1024: the CNN issues 39 and 40 call "TensorLayer's tutorial CNN" (TensorFlow's "Deep
//   MNIST" model), which bench/python/bench_python.py's `strata_cnn`/`torch_cnn` build.
// TensorLayer 2.2.5's examples/basic_tutorials hold no MNIST CNN (their CNN is CIFAR-10's).
#pragma once
#include <torch/torch.h>

#include "strata/strata.hpp"

namespace bench {

struct StrataMnistCnn : strata::nn::Module {
  strata::nn::Conv2d c1{32, {5, 5}, strata::nn::relu}, c2{64, {5, 5}, strata::nn::relu};
  strata::nn::MaxPool2d p1, p2;
  strata::nn::Flatten flat;
  strata::nn::Dense hidden, out{10};
  explicit StrataMnistCnn(int64_t hidden_units) : hidden(hidden_units, strata::nn::relu) {}
  strata::Tensor forward(const strata::Tensor& x) override { return out(hidden(flat(p2(c2(p1(c1(x))))))); }
};

// The same net in libtorch; fed channels-last tensors, its convolutions run NHWC too.
struct TorchMnistCnnImpl : torch::nn::Module {
  torch::nn::Conv2d c1{torch::nn::Conv2dOptions(1, 32, 5).padding(2)},
      c2{torch::nn::Conv2dOptions(32, 64, 5).padding(2)};
  torch::nn::Linear hidden, out;
  explicit TorchMnistCnnImpl(int64_t hidden_units) : hidden(7 * 7 * 64, hidden_units), out(hidden_units, 10) {
    register_module("c1", c1);
    register_module("c2", c2);
    register_module("hidden", hidden);
    register_module("out", out);
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::max_pool2d(torch::relu(c1(x)), 2);
    x = torch::max_pool2d(torch::relu(c2(x)), 2);
    return out(torch::relu(hidden(x.flatten(1))));
  }
};
TORCH_MODULE(TorchMnistCnn);

}  // namespace bench
