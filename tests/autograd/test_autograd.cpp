#include <gtest/gtest.h>

#include "strata/strata.hpp"

namespace strata {
namespace {

TEST(AutogradTest, ChainRuleThroughSeveralOps) {
  Tensor x = tensor({1.0, 2.0, 3.0}).requires_grad_();
  Tensor y = sum(x * x * 3.0 + exp(x));  // dy/dx = 6x + e^x
  y.backward();
  auto g = x.grad().to_vector<double>();
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(g[i], 6 * (i + 1) + std::exp(i + 1.0), 1e-12);
}

TEST(AutogradTest, GradientsAccumulateAcrossBackwardCallsUntilZeroed) {
  Tensor x = tensor({2.0}).requires_grad_();
  sum(x * 3.0).backward();
  sum(x * 3.0).backward();
  EXPECT_DOUBLE_EQ(x.grad().item<double>(), 6.0);
  x.zero_grad();
  EXPECT_FALSE(x.grad().defined());
  sum(x * x).backward();
  EXPECT_DOUBLE_EQ(x.grad().item<double>(), 4.0);
}

TEST(AutogradTest, ATensorUsedTwiceGetsBothGradients) {
  Tensor w = tensor({1.5}).requires_grad_();
  Tensor a = w * 2.0, b = w * w;
  sum(a + b).backward();  // 2 + 2w
  EXPECT_DOUBLE_EQ(w.grad().item<double>(), 5.0);
}

TEST(AutogradTest, RetainGraphAllowsASecondBackward) {
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  Tensor y = sum(exp(x));
  y.backward(Tensor(), /*retain_graph=*/true);
  y.backward();
  EXPECT_NEAR(x.grad().to_vector<double>()[1], 2 * std::exp(2.0), 1e-12);
  Tensor z = sum(exp(x));
  z.backward();
  EXPECT_THROW(z.backward(), Error);  // saved tensors were freed
}

TEST(AutogradTest, NoGradGuardAndDetachRecordNothing) {
  Tensor x = tensor({1.0}).requires_grad_();
  {
    NoGradGuard guard;
    Tensor y = x * 2.0;
    EXPECT_FALSE(y.requires_grad());
  }
  EXPECT_TRUE((x * 2.0).requires_grad());
  EXPECT_FALSE(x.detach().requires_grad());
  Tensor y = x * 2.0;
  EXPECT_THROW(sum(y.detach()).backward(), Error);
}

TEST(AutogradTest, HooksSeeAndReplaceGradients) {
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  Tensor seen;
  x.register_hook([&](const Tensor& g) {
    seen = g;
    return g * 10.0;
  });
  Tensor h = x * 3.0;
  h.register_hook([](const Tensor& g) { return g * 2.0; });
  sum(h).backward();
  EXPECT_EQ(seen.to_vector<double>(), (std::vector<double>{6, 6}));
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{60, 60}));
}

TEST(AutogradTest, RetainGradKeepsNonLeafGradients) {
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  Tensor h = x * x;
  h.retain_grad();
  sum(h * 3.0).backward();
  EXPECT_EQ(h.grad().to_vector<double>(), (std::vector<double>{3, 3}));
  Tensor k = x * 2.0;
  sum(k).backward();
  EXPECT_FALSE(k.grad().defined());
}

TEST(AutogradTest, GradFunctionLeavesDotGradAlone) {
  Tensor x = tensor({3.0}).requires_grad_();
  auto g = autograd::grad({sum(x * x * x)}, {x});
  EXPECT_DOUBLE_EQ(g[0].item<double>(), 27.0);
  EXPECT_FALSE(x.grad().defined());
}

TEST(AutogradTest, NonScalarBackwardNeedsAGradient) {
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  Tensor y = x * 2.0;
  EXPECT_THROW(y.backward(), Error);
  EXPECT_THROW(y.backward(ones({3}, kFloat64)), Error);
  y.backward(tensor({1.0, -1.0}));
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{2, -2}));
}

TEST(AutogradTest, IntegerTensorsCannotRequireGrad) { EXPECT_THROW(tensor({1, 2}).requires_grad_(), Error); }

// A long chain must not overflow the stack when it is released, with or without a backward
// pass first: its nodes hold each other through their edges and through the tensors their
// backward captured (y * c captures y, whose history is the node before). Released recursively,
// 10,000 nodes overflowed an ASan build's stack and 200,000 a release build's.
TEST(AutogradTest, GraphIsFreedWithItsOutputs) {
  constexpr int kLength = 200000;
  Tensor x = tensor({1.0}).requires_grad_(), c = tensor({1.0}).requires_grad_();
  Tensor y = x;
  for (int i = 0; i < kLength; ++i) y = y * c;
  sum(y).backward();
  EXPECT_DOUBLE_EQ(x.grad().item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(c.grad().item<double>(), kLength);
  y = Tensor();
  for (int i = 0; i < kLength; ++i) y = (i == 0 ? x : y) * 1.0;  // never differentiated
  y = Tensor();
}

TEST(AutogradTest, GradcheckCatchesAWrongGradient) {
  Tensor x = rand({4}, kFloat64).requires_grad_();
  auto good = autograd::gradcheck([](const auto& in) { return sin(in[0]) * in[0]; }, {x});
  EXPECT_TRUE(good.ok) << good.message;
  // A hook that corrupts the gradient must be caught.
  auto bad = autograd::gradcheck(
      [](const auto& in) {
        Tensor y = in[0] * 2.0;
        if (y.requires_grad()) y.register_hook([](const Tensor& g) { return g * 1.5; });
        return y;
      },
      {x});
  EXPECT_FALSE(bad.ok);
}

}  // namespace
}  // namespace strata
