// The CNN of examples/fashion_mnist_cnn.cpp (`make run`), shared with bench/bench_under_load.cpp
// so the benchmark times the very network users train.
#pragma once
#include <strata/strata.hpp>

// Two conv + pool blocks, then a dense classifier, on NHWC images [N, 28, 28, 1].
// The hidden width and the dropout rate are the hyper-parameters the plan examples search.
struct FashionMnistCnn : strata::nn::Module {
  explicit FashionMnistCnn(int64_t hidden_units = 256, double dropout = 0.3)
      : hidden{hidden_units, strata::nn::relu}, drop{dropout} {}
  strata::nn::Conv2d conv1{16, {5, 5}, strata::nn::relu}, conv2{32, {5, 5}, strata::nn::relu};
  strata::nn::MaxPool2d pool1, pool2;  // 2x2, stride 2
  strata::nn::Flatten flatten;
  strata::nn::Dense hidden, out{10};
  strata::nn::Dropout drop;
  // The 256 penultimate features (after `hidden`'s relu): what dcgan.cpp's Frechet distance
  // and two_stage.cpp's sequence model read.
  strata::Tensor features(const strata::Tensor& x) { return hidden(flatten(pool2(conv2(pool1(conv1(x)))))); }
  strata::Tensor forward(const strata::Tensor& x) override { return out(drop(features(x))); }
};

// The same network declared statically, for `strata serve`: a Module's architecture is its C++
// class, which a server cannot rebuild, so the example saves this twin holding the trained
// weights (taken by order: the layers come in the same order).
inline strata::nn::Model fashion_mnist_cnn_static() {
  using namespace strata::nn;
  auto x = Input({-1, 28, 28, 1}, "image");
  auto h = MaxPool2d()(Conv2d(16, {5, 5}, relu)(x));
  h = Flatten()(MaxPool2d()(Conv2d(32, {5, 5}, relu)(h)));
  h = Dropout(0.3)(Dense(256, relu)(h));
  return Model(x, Dense(10)(h), "fashion_mnist_cnn");
}
