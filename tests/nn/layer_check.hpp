// Helpers for the layer tests: a layer against the same computation written with the
// functional ops (outputs and every gradient), randomised weights, and errors that name a layer.
#pragma once
#include <gtest/gtest.h>

#include "support/expect_error.hpp"

#include <functional>
#include <string>

#include "strata/strata.hpp"

namespace strata::testing_nn {

// Gives every trainable weight of `layer` random values (after it is built), so that a check
// is not passed by zeros and ones.
inline void randomize(nn::Layer& layer, uint64_t seed = 7) {
  Generator gen(seed);
  NoGradGuard no_grad;
  for (Tensor w : layer.trainable_weights()) copy_(w, uniform(w.shape(), -1.0, 1.0, w.dtype(), &gen));
}

// Runs `layer_fn` and `reference` on copies of x, backpropagates the same random output
// gradient through both, and checks the outputs, x's gradients and the gradients of `weights`.
// `reference` must use the tensors in `weights` (the layer's own weights).
inline void expect_same_as(const std::function<Tensor(const Tensor&)>& layer_fn,
                           const std::function<Tensor(const Tensor&)>& reference, const Tensor& x,
                           const std::vector<Tensor>& weights, double tol = 1e-5) {
  auto run = [&](const std::function<Tensor(const Tensor&)>& f, Tensor& x_grad, std::vector<Tensor>& w_grads) {
    for (Tensor w : weights) w.zero_grad();
    Tensor xi = clone(x).requires_grad_();
    Tensor y = f(xi);
    Generator gen(11);
    Tensor g = uniform(y.shape(), -1.0, 1.0, y.dtype(), &gen);
    sum(y * g).backward();
    x_grad = xi.grad();
    w_grads.clear();
    for (const Tensor& w : weights) w_grads.push_back(w.grad().defined() ? clone(w.grad()) : Tensor());
    return y.detach();
  };
  Tensor gx_layer, gx_ref;
  std::vector<Tensor> gw_layer, gw_ref;
  Tensor y_layer = run(layer_fn, gx_layer, gw_layer);
  Tensor y_ref = run(reference, gx_ref, gw_ref);
  ASSERT_EQ(y_layer.shape(), y_ref.shape());
  EXPECT_TRUE(allclose(y_layer, y_ref, tol, tol)) << "outputs differ";
  ASSERT_TRUE(gx_layer.defined() && gx_ref.defined());
  EXPECT_TRUE(allclose(gx_layer, gx_ref, tol, tol)) << "input gradients differ";
  for (size_t i = 0; i < weights.size(); ++i) {
    ASSERT_TRUE(gw_layer[i].defined() && gw_ref[i].defined()) << "weight " << i << " got no gradient";
    EXPECT_TRUE(allclose(gw_layer[i], gw_ref[i], tol, tol)) << "gradients of weight " << i << " differ";
  }
}

using strata::testing::expect_error;

// Float64 cell weights drawn from [-bound, bound), so gradient checks can run on the layers.
inline nn::CellInit uniform_cell_init64(uint64_t seed, double bound) {
  auto gen = std::make_shared<Generator>(seed);
  nn::Initializer u = [gen, bound](const Shape& s, Generator*) { return uniform(s, -bound, bound, kFloat64, gen.get()); };
  return {u, u, u, false};
}

// autograd::gradcheck of a float64 function, as a gtest assertion.
inline void expect_gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& f, std::vector<Tensor> inputs) {
  for (Tensor& t : inputs) t.requires_grad_();
  auto r = autograd::gradcheck(f, inputs);
  EXPECT_TRUE(r.ok) << r.message;
}

}  // namespace strata::testing_nn
