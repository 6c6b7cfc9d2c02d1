#include <gtest/gtest.h>

#include "strata/autograd/post_accumulate_hook.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

TEST(PostAccumulateHookTest, SeesTheAccumulatedGradientOncePerPass) {
  Tensor w = tensor({2.0}).requires_grad_();
  std::vector<double> seen;
  autograd::register_post_accumulate_grad_hook(w, [&](const Tensor& leaf) { seen.push_back(leaf.grad().item<double>()); });
  Tensor a = w * 3.0, b = w * w;  // used twice: the hook runs once, with the sum 3 + 2w
  sum(a + b).backward();
  sum(w * 5.0).backward();  // accumulates: 7 + 5
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_DOUBLE_EQ(seen[0], 7.0);
  EXPECT_DOUBLE_EQ(seen[1], 12.0);
}

TEST(PostAccumulateHookTest, RunsForTheLastLayerFirstAndMayChangeTheGradient) {
  Tensor w1 = tensor({1.0}).requires_grad_(), w2 = tensor({3.0}).requires_grad_();
  std::vector<int> order;
  autograd::register_post_accumulate_grad_hook(w1, [&](const Tensor& leaf) {
    order.push_back(1);
    leaf.grad().data<double>()[0] *= 10;  // in place, as an all-reduce writes back
  });
  autograd::register_post_accumulate_grad_hook(w2, [&](const Tensor&) { order.push_back(2); });
  sum(exp(w1 * 2.0) * w2).backward();  // w2 is used last, so its gradient is ready first
  EXPECT_EQ(order, (std::vector<int>{2, 1}));
  EXPECT_NEAR(w1.grad().item<double>(), 10 * 2 * std::exp(2.0) * 3.0, 1e-9);
  autograd::clear_post_accumulate_grad_hooks(w1);
  w1.zero_grad();
  sum(w1 * 2.0).backward();
  EXPECT_DOUBLE_EQ(w1.grad().item<double>(), 2.0);
}

TEST(PostAccumulateHookTest, RefusesANonLeafOrATensorWithoutGrad) {
  Tensor x = tensor({1.0});
  EXPECT_THROW(autograd::register_post_accumulate_grad_hook(x, [](const Tensor&) {}), Error);
  Tensor w = tensor({1.0}).requires_grad_();
  Tensor y = w * 2.0;
  EXPECT_THROW(autograd::register_post_accumulate_grad_hook(y, [](const Tensor&) {}), Error);
}

}  // namespace
}  // namespace strata
