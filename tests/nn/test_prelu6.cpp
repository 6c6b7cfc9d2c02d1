#include <gtest/gtest.h>

#include "nn/layer_check.hpp"
#include "nn/weight_gradcheck.hpp"

namespace strata {
namespace {

// Inputs spread over all three pieces (below 0, [0, 6], above 6), away from the kinks.
Tensor spread(const Shape& s, DType dtype = kFloat32) {
  Tensor u = uniform(s, -4.0, 10.0, dtype);
  return where(abs(u) < 0.05, u + 0.1, where(abs(u - 6.0) < 0.05, u + 0.1, u));
}

TEST(PRelu6Test, ClosedFormAndGradients) {
  nn::PRelu6 pr;
  Tensor x = spread({4, 3, 5});
  EXPECT_EQ(pr(x).shape(), x.shape());
  EXPECT_EQ(pr.alpha.shape(), Shape({5}));
  testing_nn::randomize(pr);
  testing_nn::expect_same_as([&](const Tensor& t) { return pr(t); },
                             [&](const Tensor& t) { return where(t < 0.0, t * pr.alpha, minimum(t, full({}, 6.0))); },
                             x, {pr.alpha});
  nn::PRelu6 shared(true);
  shared(x);
  EXPECT_EQ(shared.alpha.shape(), Shape({1}));
  // Finite differences of the input and of the layer's own alpha, in float64.
  nn::PRelu6 p64(false, testing_nn::f64_uniform(3));
  Tensor x64 = spread({6, 4}, kFloat64);
  testing_nn::expect_gradcheck([&](const std::vector<Tensor>& v) { return p64(v[0]); }, {x64});
  testing_nn::expect_weight_grads([&] { return p64(x64) * x64; }, {p64.alpha});
  pr.eval();
  EXPECT_TRUE(allclose(pr(x), nn::prelu6(x, pr.alpha), 0, 0));
  testing_nn::expect_error([&] { pr(randn({2, 4})); }, {pr.name(), "[..., 5]", "[2, 4]"});
}

TEST(PTRelu6Test, ClosedFormAndGradients) {
  nn::PTRelu6 pt;
  Tensor x = spread({4, 6});
  pt(x);
  EXPECT_EQ(pt.alpha_low.shape(), Shape({6}));
  EXPECT_EQ(pt.alpha_high.shape(), Shape({6}));
  EXPECT_EQ(pt.trainable_weights().size(), 2u);
  testing_nn::randomize(pt);
  testing_nn::expect_same_as(
      [&](const Tensor& t) { return pt(t); },
      [&](const Tensor& t) {
        return where(t < 0.0, t * pt.alpha_low, where(t > 6.0, (t - 6.0) * pt.alpha_high + 6.0, t));
      },
      x, {pt.alpha_low, pt.alpha_high});
  nn::PTRelu6 p64(true, testing_nn::f64_uniform(5));
  Tensor x64 = spread({5, 3}, kFloat64);
  testing_nn::expect_gradcheck([&](const std::vector<Tensor>& v) { return p64(v[0]); }, {x64});
  testing_nn::expect_weight_grads([&] { return p64(x64) * x64; }, {p64.alpha_low, p64.alpha_high});
  EXPECT_EQ(p64.alpha_low.shape(), Shape({1}));
  testing_nn::expect_error([&] { pt(randn({2, 5})); }, {pt.name(), "[..., 6]", "[2, 5]"});
}

}  // namespace
}  // namespace strata
