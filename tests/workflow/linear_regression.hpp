// A small real model for the search, cross-validation and retraining tests: a Dense(1) layer
// (linear regression) trained from zero weights by full-batch SGD on synthetic data. Training
// is deterministic, so a test can train every configuration directly and compare.
#pragma once
#include "strata/autograd/grad_mode.hpp"
#include "strata/core/factory.hpp"
#include "strata/io/safetensors.hpp"
#include "strata/nn/initializers.hpp"
#include "strata/nn/layers/dense.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/loss.hpp"
#include "strata/optim/sgd.hpp"

namespace strata::workflow::testing {

struct Regression {
  Tensor x, y;  // y = x w + noise
};

// n samples of 4 features; the same seed gives the same data.
inline Regression make_regression(uint64_t seed, int64_t n, double noise = 0.1) {
  Generator g(seed);
  Tensor x = randn({n, 4}, kFloat32, &g);
  const Tensor w = from_vector(std::vector<float>{1.0f, -2.0f, 0.5f, 3.0f}).reshape({4, 1});
  Tensor y = matmul(x, w) + randn({n, 1}, kFloat32, &g) * noise;
  return {x, y};
}

inline Regression rows(const Regression& d, const std::vector<int64_t>& index) {
  const Tensor i = from_vector(index);
  return {index_select(d.x, 0, i), index_select(d.y, 0, i)};
}

struct Fitted {
  io::NamedTensors weights;
  double loss;  // mean squared error on the validation data
};

// `steps` full-batch SGD steps from zero weights at learning rate `lr` with L2 `weight_decay`.
inline Fitted fit_linear(const Regression& train, const Regression& val, double lr, double weight_decay, int64_t steps) {
  nn::Dense dense(1, {}, "linear", -1, true, nn::zeros_init(), nn::zeros_init());
  dense(train.x.narrow(0, 0, 1));  // builds W [4, 1] and b [1]
  optim::SGD sgd(dense.trainable_weights(), {.lr = lr, .weight_decay = weight_decay});
  for (int64_t s = 0; s < steps; ++s) {
    sgd.zero_grad();
    mse_loss(dense(train.x), train.y).backward();
    sgd.step();
  }
  NoGradGuard no_grad;
  return {dense.named_weights(), mse_loss(dense(val.x), val.y).item<double>()};
}

}  // namespace strata::workflow::testing
