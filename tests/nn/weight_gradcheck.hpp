// Helpers for checking layers in float64: an initializer of random float64 weights, and a
// finite-difference check of the gradients of a layer's own weights (autograd::gradcheck
// perturbs copies of its inputs, which cannot reach the tensors a layer holds).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "strata/strata.hpp"

namespace strata::testing_nn {

// Uniform(-1, 1) float64 weights from a seeded generator shared by the layer's weights.
inline nn::Initializer f64_uniform(uint64_t seed) {
  auto gen = std::make_shared<Generator>(seed);
  return [gen](const Shape& s, Generator*) { return uniform(s, -1.0, 1.0, kFloat64, gen.get()); };
}

// Backpropagates sum(loss()) and compares each float64 weight's gradient with central
// differences of loss(), perturbing the weight's elements in place.
inline void expect_weight_grads(const std::function<Tensor()>& loss, const std::vector<Tensor>& weights,
                                double eps = 1e-6, double tol = 1e-6) {
  for (Tensor w : weights) w.zero_grad();
  sum(loss()).backward();
  auto value = [&] {
    NoGradGuard no_grad;
    return sum(loss()).item<double>();
  };
  for (size_t i = 0; i < weights.size(); ++i) {
    const Tensor& w = weights[i];
    ASSERT_EQ(w.dtype(), kFloat64);
    ASSERT_TRUE(w.is_contiguous() && w.grad().defined()) << "weight " << i << " got no gradient";
    std::vector<double> got = w.grad().to_vector<double>();
    double* p = w.data<double>();
    for (int64_t j = 0; j < w.numel(); ++j) {
      const double orig = p[j];
      p[j] = orig + eps;
      double up = value();
      p[j] = orig - eps;
      double down = value();
      p[j] = orig;
      double numeric = (up - down) / (2 * eps);
      ASSERT_LE(std::abs(got[j] - numeric), tol * std::max(1.0, std::abs(numeric)))
          << "weight " << i << " element " << j << ": autograd " << got[j] << ", finite difference " << numeric;
    }
  }
}

}  // namespace strata::testing_nn
