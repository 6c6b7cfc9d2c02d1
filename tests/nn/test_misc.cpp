#include <gtest/gtest.h>

#include "nn/layer_check.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;
using testing_nn::expect_gradcheck;
using testing_nn::expect_same_as;

TEST(MiscLayersTest, PReluLearnsASlopePerChannelOrShared) {
  nn::PRelu pr;
  Tensor x = randn({4, 3, 5});
  EXPECT_EQ(pr(x).shape(), x.shape());
  EXPECT_EQ(pr.alpha.shape(), Shape({5}));
  EXPECT_LE(amax(abs(pr.alpha)).item<double>(), 0.1);  // truncated normal, stddev 0.05
  testing_nn::randomize(pr);
  expect_same_as([&](const Tensor& t) { return pr(t); },
                 [&](const Tensor& t) { return where(t > 0.0, t, t * pr.alpha); }, x, {pr.alpha});
  nn::PRelu shared(/*channel_shared=*/true);
  shared(x);
  EXPECT_EQ(shared.alpha.shape(), Shape({1}));
  expect_gradcheck([](const std::vector<Tensor>& v) { return nn::prelu(v[0], v[1]); },
                   {randn({3, 4}, kFloat64) + 0.05, randn({4}, kFloat64)});
  expect_error([&] { pr(randn({4, 3, 6})); }, {pr.name(), "[..., 5]", "[4, 3, 6]"});
  expect_error([] { nn::PRelu(false, 3, nn::zeros_init(), "p3")(randn({2, 4})); }, {"p3", "declared with 3"});
}

TEST(MiscLayersTest, ScaleMultipliesByOneLearnedFactor) {
  nn::Scale s(0.5);
  Tensor x = randn({2, 3});
  EXPECT_TRUE(allclose(s(x), x * 0.5));
  EXPECT_EQ(s.scale.shape(), Shape({1}));
  expect_same_as([&](const Tensor& t) { return s(t); }, [&](const Tensor& t) { return t * s.scale; }, x, {s.scale});
}

TEST(MiscLayersTest, GaussianNoiseOnlyInTraining) {
  nn::GaussianNoise noise(0.5, 2.0);
  Tensor x = zeros({200, 50});
  Tensor y = noise(x);
  EXPECT_NEAR(mean(y).item<double>(), 0.5, 0.1);
  EXPECT_NEAR(std(y).item<double>(), 2.0, 0.1);
  EXPECT_FALSE(allclose(noise(x), y, 0, 0));  // fresh noise each call
  noise.eval();
  EXPECT_TRUE(allclose(noise(x), x, 0, 0));
  nn::GaussianNoise always(0, 1, /*is_always=*/true);
  always.eval();
  EXPECT_FALSE(allclose(always(x), x, 0, 0));
  // A seed gives the layer its own generator: equal seeds, equal noise.
  nn::GaussianNoise a(0, 1, false, 42), b(0, 1, false, 42);
  EXPECT_TRUE(allclose(a(x), b(x), 0, 0));
  // The gradient passes through unchanged.
  Tensor xi = randn({3, 4}).requires_grad_();
  sum(nn::GaussianNoise()(xi) * 3.0).backward();
  EXPECT_TRUE(allclose(xi.grad(), full({3, 4}, 3.0), 0, 0));
  expect_error([] { nn::GaussianNoise(0, -1, false, -1, "gn"); }, {"gn (gaussiannoise)", "stddev"});
}

}  // namespace
}  // namespace strata
