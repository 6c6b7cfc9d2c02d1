// Gradient clipping against torch.nn.utils' formulas, worked out by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "strata/optim/optim.hpp"
#include "strata/strata.hpp"

namespace strata::optim {
namespace {

// Two parameters with gradients [3, -4] and [12] (L2 norm 13, L1 19, max 12) and one without.
std::vector<Tensor> params_with_grads() {
  Tensor a = zeros({2}, kFloat64).requires_grad_(), b = zeros({1}, kFloat64).requires_grad_();
  Tensor none = zeros({3}, kFloat64).requires_grad_();
  a.set_grad(tensor({3.0, -4.0}));
  b.set_grad(tensor({12.0}));
  return {a, b, none};
}

TEST(ClipTest, ClipGradNormScalesAllGradientsTogether) {
  auto ps = params_with_grads();
  EXPECT_DOUBLE_EQ(clip_grad_norm(ps, 6.5), 13.0);
  const double c = 6.5 / (13.0 + 1e-6);
  auto ga = ps[0].grad().to_vector<double>(), gb = ps[1].grad().to_vector<double>();
  EXPECT_DOUBLE_EQ(ga[0], 3 * c);
  EXPECT_DOUBLE_EQ(ga[1], -4 * c);
  EXPECT_DOUBLE_EQ(gb[0], 12 * c);
  EXPECT_FALSE(ps[2].grad().defined());
  EXPECT_NEAR(clip_grad_norm(ps, 100), 6.5, 1e-6);  // the clipped norm
}

TEST(ClipTest, ClipGradNormOtherNorms) {
  auto ps = params_with_grads();
  EXPECT_DOUBLE_EQ(clip_grad_norm(ps, 1.0, INFINITY), 12.0);
  EXPECT_DOUBLE_EQ(ps[1].grad().item<double>(), 12.0 / (12.0 + 1e-6));
  ps = params_with_grads();
  EXPECT_DOUBLE_EQ(clip_grad_norm(ps, 100, 1), 19.0);
  ps = params_with_grads();
  EXPECT_NEAR(clip_grad_norm(ps, 100, 3), std::cbrt(27.0 + 64 + 1728), 1e-12);
}

TEST(ClipTest, SmallGradientsAreLeftUntouched) {
  auto ps = params_with_grads();
  EXPECT_DOUBLE_EQ(clip_grad_norm(ps, 13.01), 13.0);
  EXPECT_EQ(ps[0].grad().to_vector<double>(), (std::vector<double>{3.0, -4.0}));
  EXPECT_EQ(ps[1].grad().to_vector<double>(), (std::vector<double>{12.0}));
  clip_grad_value(ps, 20);
  EXPECT_EQ(ps[0].grad().to_vector<double>(), (std::vector<double>{3.0, -4.0}));
}

TEST(ClipTest, NoGradientsGiveZeroNorm) {
  Tensor w = zeros({2}).requires_grad_();
  EXPECT_EQ(clip_grad_norm({w}, 1.0), 0.0);
}

TEST(ClipTest, ClipGradValueClampsEachElement) {
  auto ps = params_with_grads();
  clip_grad_value(ps, 3.5);
  EXPECT_EQ(ps[0].grad().to_vector<double>(), (std::vector<double>{3.0, -3.5}));
  EXPECT_EQ(ps[1].grad().to_vector<double>(), (std::vector<double>{3.5}));
  EXPECT_FALSE(ps[2].grad().defined());
}

TEST(ClipTest, ClipsGradientsFromBackwardInFloat32) {
  Tensor w = tensor({1.0f, 2.0f}).requires_grad_();
  sum(w * w * 5.0f).backward();  // gradient 10 w = [10, 20]
  double norm = clip_grad_norm({w}, 1.0);
  EXPECT_NEAR(norm, std::sqrt(500.0), 1e-4);
  auto g = w.grad().to_vector<double>();
  EXPECT_NEAR(std::hypot(g[0], g[1]), 1.0, 1e-5);
}

TEST(ClipTest, BadArgumentsThrow) {
  auto ps = params_with_grads();
  EXPECT_THROW(clip_grad_norm(ps, -1), Error);
  EXPECT_THROW(clip_grad_norm(ps, 1, 0), Error);
  EXPECT_THROW(clip_grad_value(ps, -1), Error);
}

}  // namespace
}  // namespace strata::optim
