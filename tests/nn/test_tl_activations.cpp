// ramp, leaky_relu6 and leaky_twice_relu6 against TensorLayer's own min/max formulas written out
// element by element, and their gradients against finite differences (points away from the kinks).
#include <gtest/gtest.h>

#include <algorithm>

#include "nn/layer_check.hpp"
#include "strata/nn/layers/activation.hpp"
#include "support/expect_error.hpp"

namespace strata {
namespace {

const std::vector<double> kTlActivationPoints = {-9.5, -3.25, -0.75, -0.1, 0.3, 0.9, 2.5, 5.75, 6.2, 8.5, 13.0};

TEST(TlActivations, MatchTensorLayersFormulas) {
  const Tensor x = from_vector(kTlActivationPoints, {int64_t(kTlActivationPoints.size())});
  const auto ramp = nn::ramp(x, -1, 3).to_vector<double>();
  const auto l6 = nn::leaky_relu6(x, 0.3).to_vector<double>();
  const auto lt6 = nn::leaky_twice_relu6(x, 0.25, 0.1).to_vector<double>();
  for (size_t i = 0; i < kTlActivationPoints.size(); ++i) {
    const double v = kTlActivationPoints[i];
    EXPECT_DOUBLE_EQ(ramp[i], std::clamp(v, -1.0, 3.0)) << v;
    EXPECT_DOUBLE_EQ(l6[i], std::min(std::max(v, 0.3 * v), 6.0)) << v;
    EXPECT_NEAR(lt6[i], std::max(std::min(v, 6 * (1 - 0.1) + 0.1 * v), std::min(0.25 * v, 0.0)), 1e-12) << v;
  }
}

TEST(TlActivations, GradientsMatchFiniteDifferences) {
  const Tensor x = from_vector(kTlActivationPoints, {int64_t(kTlActivationPoints.size())});
  testing_nn::expect_gradcheck([](const std::vector<Tensor>& v) { return nn::ramp(v[0], -1, 3); }, {x});
  testing_nn::expect_gradcheck([](const std::vector<Tensor>& v) { return nn::leaky_relu6(v[0], 0.3); }, {x});
  testing_nn::expect_gradcheck([](const std::vector<Tensor>& v) { return nn::leaky_twice_relu6(v[0], 0.25, 0.1); },
                               {x});
}

TEST(TlActivations, SlopesOutsideTensorLayersRangeAreErrors) {
  const Tensor x = zeros({3});
  testing::expect_error([&] { nn::leaky_relu6(x, 1.5); }, {"leaky_relu6", "alpha", "1.5"});
  testing::expect_error([&] { nn::leaky_twice_relu6(x, 0.2, 0); }, {"leaky_twice_relu6", "alpha_high"});
  testing::expect_error([&] { nn::ramp(x, 2, 1); }, {"ramp", "v_min"});
}

}  // namespace
}  // namespace strata
