// The rl utilities against values computed by hand (the arithmetic is in the comments).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "support/expect_error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/loss.hpp"
#include "strata/rl/policy_utils.hpp"
#include "strata/rl/prioritized_replay_buffer.hpp"
#include "strata/rl/returns.hpp"
#include "strata/rl/running_normalizer.hpp"

namespace strata::rl {
namespace {

using strata::testing::expect_error;

void expect_values(const Tensor& t, const std::vector<float>& want) {
  const auto got = t.to_vector<float>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << "[" << i << "]";
}

TEST(Returns, DiscountedReturnsRestartAtEpisodeEnds) {
  // One copy, rewards 1, 2, 3, 4 with an episode ending after the second step, gamma 0.5:
  // G3 = 4 + 0.5 * 10 (bootstrap) = 9, G2 = 3 + 0.5 * 9 = 7.5, G1 = 2 (ends), G0 = 1 + 0.5 * 2 = 2.
  const Tensor r = tensor({1.f, 2.f, 3.f, 4.f}, {4, 1}), d = tensor({0.f, 1.f, 0.f, 0.f}, {4, 1});
  expect_values(discounted_returns(r, d, 0.5, tensor({10.f}, {1})), {2, 2, 7.5, 9});
  expect_values(discounted_returns(r, d, 0.5), {2, 2, 5, 4});  // no bootstrap: G3 = 4, G2 = 3 + 2
  expect_error([&] { discounted_returns(r, tensor({0.f, 1.f}, {2, 1}), 0.5); }, {"dones", "[4, 1]", "[2, 1]"});
  expect_error([&] { discounted_returns(r, d, 1.5); }, {"gamma"});
}

TEST(Returns, GaeCutsAtEndsAndBootstrapsTruncation) {
  // Two steps of two copies, gamma 0.5, lambda 0.5. Copy 0: no ends; copy 1: step 0 truncated
  // (its final state has value 4, bootstrapped), step 1 terminated (no bootstrap).
  const Tensor r = tensor({1.f, 1.f, 1.f, 1.f}, {2, 2});
  const Tensor v = tensor({2.f, 2.f, 3.f, 3.f}, {2, 2});
  const Tensor nv = tensor({3.f, 4.f, 6.f, 9.f}, {2, 2});
  const Tensor term = tensor({0.f, 0.f, 0.f, 1.f}, {2, 2}), done = tensor({0.f, 1.f, 0.f, 1.f}, {2, 2});
  // copy 0: d1 = 1 + 0.5*6 - 3 = 1 = A1; d0 = 1 + 0.5*3 - 2 = 0.5; A0 = 0.5 + 0.25*1 = 0.75.
  // copy 1: d1 = 1 - 3 = -2 = A1; d0 = 1 + 0.5*4 - 2 = 1 = A0 (the trace is cut by the end).
  const Advantages a = gae(r, v, nv, term, done, 0.5, 0.5);
  expect_values(a.advantages, {0.75f, 1.f, 1.f, -2.f});
  expect_values(a.returns, {2.75f, 3.f, 4.f, 1.f});
  // lambda 1 and no ends: the discounted return bootstrapped with the last value, minus V.
  const Advantages mc = gae(r, v, nv, zeros({2, 2}), zeros({2, 2}), 0.5, 1.0);
  expect_values(mc.returns.select(1, 0), {1 + 0.5f * (1 + 0.5f * 6), 1 + 0.5f * 6});
}

TEST(PolicyUtils, CrossEntropyRewardLoss) {
  // logits (0, 0): -log softmax = log 2 for either action; loss = log 2 * (2 + -1) = log 2.
  const Tensor logits = zeros({2, 2}), actions = tensor({int64_t{0}, int64_t{1}}), rewards = tensor({2.f, -1.f});
  EXPECT_NEAR(cross_entropy_reward_loss(logits, actions, rewards).item<double>(), std::log(2.0), 1e-6);
  // Its gradient: rewards_b * (softmax - one_hot(action_b)) = row0: 2 * (0.5 - 1, 0.5), row1: -1 * (0.5, 0.5 - 1).
  Tensor w = zeros({2, 2});
  w.requires_grad_();
  cross_entropy_reward_loss(w, actions, rewards).backward();
  expect_values(w.grad(), {-1.f, 1.f, -0.5f, 0.5f});
  expect_error([&] { cross_entropy_reward_loss(logits, actions, tensor({1.f})); }, {"rewards [B]"});
}

TEST(PolicyUtils, SamplingFollowsTheProbabilities) {
  Generator gen(3);
  const std::vector<float> probs = {0.1f, 0.0f, 0.6f, 0.3f};
  std::map<int64_t, int> counts;
  for (int i = 0; i < 20000; ++i) ++counts[sample_action(probs, gen)];
  EXPECT_EQ(counts[1], 0);  // never an action of probability 0
  EXPECT_NEAR(counts[0] / 20000.0, 0.1, 0.01);
  EXPECT_NEAR(counts[2] / 20000.0, 0.6, 0.015);
  const Tensor batch = sample_actions(tensor({0.f, 1.f, 1.f, 0.f}, {2, 2}), gen);
  EXPECT_EQ(batch.to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));
  expect_error([&] { sample_action(std::vector<float>{0.f, 0.f}, gen); }, {"sum to 0"});
  expect_error([&] { sample_action(std::vector<float>{-1.f, 2.f}, gen); }, {">= 0"});
}

TEST(ReplayBuffer, RingKeepsTheLastTransitions) {
  ReplayBuffer buffer(3, 2, 1);
  for (int i = 0; i < 5; ++i) {
    const float f = static_cast<float>(i);
    buffer.add(std::vector<float>{f, -f}, std::vector<float>{f}, 10 * f, std::vector<float>{f + 1, 0}, i == 4);
  }
  EXPECT_EQ(buffer.size(), 3);
  Generator gen(1);
  const Transitions t = buffer.sample(64, gen);
  for (int64_t b = 0; b < 64; ++b) {
    const float a = t.actions.select(0, b).item<float>();
    EXPECT_GE(a, 2.f);  // 0 and 1 were overwritten
    EXPECT_EQ(t.observations.select(0, b).to_vector<float>(), (std::vector<float>{a, -a}));
    EXPECT_EQ(t.rewards.select(0, b).item<float>(), 10 * a);
    EXPECT_EQ(t.next_observations.select(0, b).select(0, 0).item<float>(), a + 1);
    EXPECT_EQ(t.terminated.select(0, b).item<float>(), a == 4 ? 1.f : 0.f);
  }
  expect_error([&] { buffer.add(std::vector<float>{1}, std::vector<float>{0}, 0, std::vector<float>{1, 2}, false); },
               {"2 values"});
  ReplayBuffer empty(3, 2, 1);
  expect_error([&] { empty.sample(4, gen); }, {"non-empty"});
}

TEST(SumTree, SetsSumsAndFinds) {
  SumTree tree(5);  // 8 leaves, 3 unused
  const std::vector<double> p = {1, 0, 2, 3, 4};
  for (int64_t i = 0; i < 5; ++i) tree.set(i, p[i]);
  EXPECT_DOUBLE_EQ(tree.total(), 10);
  // Prefix sums 0 | 1 | 1 | 3 | 6 | 10: the slot whose interval holds the mass.
  EXPECT_EQ(tree.find(0.0), 0);
  EXPECT_EQ(tree.find(0.99), 0);
  EXPECT_EQ(tree.find(1.0), 2);  // slot 1 has priority 0: never found
  EXPECT_EQ(tree.find(2.99), 2);
  EXPECT_EQ(tree.find(3.0), 3);
  EXPECT_EQ(tree.find(9.99), 4);
  tree.set(4, 0.5);
  EXPECT_DOUBLE_EQ(tree.total(), 6.5);
  expect_error([&] { tree.find(6.5); }, {"mass"});
  expect_error([&] { tree.set(5, 1); }, {"slot 5"});
  expect_error([&] { tree.set(0, -1); }, {"priority"});
}

TEST(PrioritizedReplayBuffer, SamplesByPriorityWithImportanceWeights) {
  PrioritizedReplayBuffer buffer(4, 1, 1, /*alpha=*/1.0, /*beta=*/1.0, /*epsilon=*/1e-6);
  for (int i = 0; i < 4; ++i) {
    const float f = static_cast<float>(i);
    buffer.add(std::vector<float>{f}, std::vector<float>{f}, 0, std::vector<float>{f}, false);
  }
  // |TD errors| 1, 1, 1, 5: P = 1/8, 1/8, 1/8, 5/8; w = (4 P)^-1 / max = (2, 2, 2, 0.4) / 2.
  buffer.update_priorities({0, 1, 2, 3}, std::vector<float>{1, -1, 1, 5});
  Generator gen(5);
  int fours = 0, draws = 0;
  for (int round = 0; round < 200; ++round) {
    const Transitions t = buffer.sample(8, gen);
    for (int64_t b = 0; b < 8; ++b, ++draws) {
      const bool last = t.indices[b] == 3;
      fours += last;
      EXPECT_NEAR(t.weights.select(0, b).item<float>(), last ? 0.2f : 1.f, 1e-4);
    }
  }
  EXPECT_NEAR(fours / static_cast<double>(draws), 5.0 / 8, 0.03);
  expect_error([&] { buffer.update_priorities({7}, std::vector<float>{1}); }, {"index 7"});
}

TEST(RunningMeanStd, MatchesTheWholeSample) {
  // Batches {1, 2} and {3, 4, 5, 6} of one feature: mean 3.5, population variance 35/12.
  RunningMeanStd stats(1);
  stats.update(tensor({1.f, 2.f}, {2, 1}));
  stats.update(tensor({3.f, 4.f, 5.f, 6.f}, {4, 1}));
  EXPECT_NEAR(stats.mean()[0], 3.5, 1e-12);
  EXPECT_NEAR(stats.var()[0], 35.0 / 12, 1e-12);
  EXPECT_DOUBLE_EQ(stats.count(), 6);
  expect_values(stats.normalize(tensor({3.5f, 100.f}, {2, 1}), 5.0), {0.f, 5.f});  // clipped at 5
  expect_error([&] { stats.update(zeros({2, 3})); }, {"[2, 3]"});
}

TEST(RewardScaler, DividesByTheStdOfTheDiscountedReturn) {
  // One copy, gamma 0.5, rewards 2 each step, an episode end after step 2.
  // Step 1: returns {2}, variance 0: 2 / ~0 clipped to 10. Step 2: return 0.5 * 2 + 2 = 3,
  // returns {2, 3}: std 0.5, 2 / 0.5 = 4. Step 3 (a new episode): return 2, returns {2, 3, 2}:
  // variance 2/9, 2 / sqrt(2/9) = 4.2426.
  RewardScaler scaler(1, 0.5);
  EXPECT_NEAR(scaler.scale({2.f}, {0})[0], 10.f, 1e-5);
  EXPECT_NEAR(scaler.scale({2.f}, {1})[0], 4.f, 1e-4);
  EXPECT_NEAR(scaler.scale({2.f}, {0})[0], 2.0 / std::sqrt(2.0 / 9), 1e-4);
  expect_error([&] { scaler.scale({1.f, 2.f}, {0, 0}); }, {"expected 1 rewards"});
}

}  // namespace
}  // namespace strata::rl
