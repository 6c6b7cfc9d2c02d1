// Second-order gradients: backward(create_graph=true) and autograd::grad(..., create_graph).
#include <gtest/gtest.h>

#include <cmath>

#include "strata/strata.hpp"

namespace strata {
namespace {

TEST(HigherOrderTest, HessianVectorProductOfATensorUsedThreeTimes) {
  // f = sum(x^3 sin x): each x's gradient is summed from three uses, which must stay differentiable.
  Tensor x = tensor({0.3, -1.2, 2.0}).requires_grad_();
  Tensor v = tensor({1.0, -0.5, 2.0});
  Tensor g = autograd::grad({sum(x * x * x * sin(x))}, {x}, {}, false, /*create_graph=*/true)[0];
  ASSERT_TRUE(g.requires_grad());
  Tensor hv = autograd::grad({sum(g * v)}, {x})[0];
  auto xs = x.detach().to_vector<double>(), vs = v.to_vector<double>(), got = hv.to_vector<double>();
  for (int i = 0; i < 3; ++i) {
    const double a = xs[i];
    // d2/dx2 x^3 sin x = 6x sin x + 6x^2 cos x - x^3 sin x
    const double h = 6 * a * std::sin(a) + 6 * a * a * std::cos(a) - a * a * a * std::sin(a);
    EXPECT_NEAR(got[i], h * vs[i], 1e-10);
  }
}

TEST(HigherOrderTest, BackwardWithCreateGraphLeavesADifferentiableGrad) {
  Tensor x = tensor({1.0, -2.0}).requires_grad_();
  autograd::backward(sum(exp(x) * x), Tensor(), false, /*create_graph=*/true);
  Tensor g = x.grad();  // e^x (1 + x)
  ASSERT_TRUE(g.requires_grad());
  x.zero_grad();
  sum(g).backward();  // d/dx e^x (1 + x) = e^x (2 + x)
  auto got = x.grad().to_vector<double>();
  EXPECT_NEAR(got[0], std::exp(1.0) * 3, 1e-12);
  EXPECT_NEAR(got[1], std::exp(-2.0) * 0, 1e-12);
}

TEST(HigherOrderTest, WithoutCreateGraphTheGradientHasNoHistory) {
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  Tensor g = autograd::grad({sum(exp(x))}, {x})[0];
  EXPECT_FALSE(g.requires_grad());
}

// WGAN-GP: the penalty (|d critic / d x| - 1)^2 differentiated w.r.t. the critic's weights,
// checked against finite differences of the penalty computed with plain first-order gradients.
TEST(HigherOrderTest, GradientPenaltyMatchesFiniteDifferences) {
  Generator gen(5);
  Tensor x = uniform({3, 4}, -1, 1, kFloat64, &gen);
  Tensor w = uniform({4, 2}, -1, 1, kFloat64, &gen).requires_grad_();
  Tensor b = uniform({2}, -1, 1, kFloat64, &gen);
  auto penalty = [&](const Tensor& weights, bool create_graph) {
    Tensor xi = x.detach().requires_grad_();
    Tensor critic = sum(softplus(tanh(linear(xi, weights, b))) * tensor({1.0, -0.7}));
    Tensor g = autograd::grad({critic}, {xi}, {}, false, create_graph)[0];
    return sum(square(sqrt(sum(square(g), {1})) - 1.0));
  };
  penalty(w, true).backward();
  auto analytic = w.grad().to_vector<double>();
  const double eps = 1e-6;
  for (int64_t j = 0; j < w.numel(); ++j) {
    Tensor probe = clone(w.detach());
    double* p = probe.data<double>();
    p[j] += eps;
    const double up = penalty(probe, false).item<double>();
    p[j] -= 2 * eps;
    const double down = penalty(probe, false).item<double>();
    EXPECT_NEAR(analytic[j], (up - down) / (2 * eps), 1e-6) << "weight " << j;
  }
}

TEST(HigherOrderTest, GradgradcheckCatchesALostSecondOrderTerm) {
  Tensor x = uniform({4}, 0.2, 1, kFloat64).requires_grad_();
  auto good = autograd::gradgradcheck([](const auto& in) { return sin(in[0] * in[0]); }, {x});
  EXPECT_TRUE(good.ok) << good.message;
  // A hook that detaches the gradient reaching x * x drops its dependence on x (cos(x^2)).
  auto bad = autograd::gradgradcheck(
      [](const auto& in) {
        Tensor h = in[0] * in[0];
        if (h.requires_grad()) h.register_hook([](const Tensor& g) { return g.detach(); });
        return sin(h);
      },
      {x});
  EXPECT_FALSE(bad.ok);
}

}  // namespace
}  // namespace strata
