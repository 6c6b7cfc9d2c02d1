// A short training run on a device, for comparing a backend's training with the CPU's
// (tests/dispatch, tests/cuda).
#pragma once
#include <gtest/gtest.h>

#include <vector>

#include "strata/strata.hpp"

namespace strata::testing {

// Three Adam steps of a small classifier from the same initial weights, on `device` (from the
// second step only with `move_after_first_step`); the weights after them.
inline std::vector<std::vector<float>> adam_steps_on(Device device, bool move_after_first_step) {
  manual_seed(7);
  nn::Dense hidden(8, nn::relu), out(3);
  const Tensor x = randn({16, 5}).to(device == kCPU || move_after_first_step ? kCPU : device);
  const Tensor y = randint(0, 3, {16}).to(x.device());
  hidden.to(x.device());
  out.to(x.device());
  out(hidden(x));  // builds the weights where the layers are
  std::vector<Tensor> params = hidden.trainable_weights();
  for (const Tensor& w : out.trainable_weights()) params.push_back(w);
  optim::Adam adam(params, {.lr = 0.05});
  Tensor xs = x, ys = y;
  for (int step = 0; step < 3; ++step) {
    if (step == 1 && move_after_first_step) {
      hidden.to(device);
      out.to(device);
      xs = x.to(device), ys = y.to(device);
    }
    adam.zero_grad();
    cross_entropy(out(hidden(xs)), ys).backward();
    adam.step();
  }
  std::vector<std::vector<float>> values;
  for (const Tensor& w : params) {
    EXPECT_EQ(w.device(), device);
    values.push_back(w.to_vector<float>());
  }
  return values;
}

}  // namespace strata::testing
