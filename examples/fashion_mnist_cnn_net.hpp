// The CNN of examples/fashion_mnist_cnn.cpp (`make run`), shared with bench/bench_under_load.cpp
// so the benchmark times the very network users train.
#pragma once
#include <strata/strata.hpp>

// Two conv + pool blocks, then a dense classifier, on NHWC images [N, 28, 28, 1].
struct FashionMnistCnn : strata::nn::Module {
  strata::nn::Conv2d conv1{16, {5, 5}, strata::nn::relu}, conv2{32, {5, 5}, strata::nn::relu};
  strata::nn::MaxPool2d pool1, pool2;  // 2x2, stride 2
  strata::nn::Flatten flatten;
  strata::nn::Dense hidden{256, strata::nn::relu}, out{10};
  strata::nn::Dropout drop{0.3};
  strata::Tensor forward(const strata::Tensor& x) override {
    strata::Tensor h = pool2(conv2(pool1(conv1(x))));
    return out(drop(hidden(flatten(h))));
  }
};
