// The environment interface: bad actions and calls out of order are strata::Errors, seeds give
// the same episodes, start states follow Gymnasium's distributions, and VectorEnv autoresets.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/expect_error.hpp"
#include "strata/core/factory.hpp"
#include "strata/rl/make_env.hpp"
#include "strata/rl/vector_env.hpp"

namespace strata::rl {
namespace {

using strata::testing::expect_error;

TEST(Envs, ActionsOutsideTheSpaceAreErrors) {
  auto cartpole = make_env("CartPole-v1");
  cartpole->reset(1);
  expect_error([&] { cartpole->step(int64_t{2}); }, {"CartPole-v1", "action 2", "Discrete(2)"});
  expect_error([&] { cartpole->step(int64_t{-1}); }, {"CartPole-v1", "Discrete(2)"});
  const std::vector<float> half = {0.5f}, two = {0.f, 1.f};
  expect_error([&] { cartpole->step(half); }, {"CartPole-v1", "integer"});
  expect_error([&] { cartpole->step(two); }, {"CartPole-v1", "1 value(s), got 2"});
  auto pendulum = make_env("Pendulum-v1");
  pendulum->reset(1);
  const std::vector<float> big = {2.5f}, nan = {std::numeric_limits<float>::quiet_NaN()};
  expect_error([&] { pendulum->step(big); }, {"Pendulum-v1", "outside the box"});
  expect_error([&] { pendulum->step(nan); }, {"Pendulum-v1", "outside the box"});
  expect_error([&] { pendulum->step(int64_t{0}); }, {"Pendulum-v1", "discrete"});
  expect_error([] { make_env("Breakout-v5"); }, {"Breakout-v5", "CartPole-v1"});
}

TEST(Envs, StepBeforeResetAndAfterTheEndAreErrors) {
  auto env = make_env("CartPole-v1");
  expect_error([&] { env->step(int64_t{0}); }, {"before reset"});
  env->reset(3);
  while (!env->step(int64_t{0}).done()) {
  }
  expect_error([&] { env->step(int64_t{0}); }, {"after the episode ended"});
  expect_error([&] { env->reset_to(std::vector<double>{1, 2}); }, {"4 values, got 2"});
}

TEST(Envs, SeedsRepeatAndStartStatesFollowGymnasium) {
  for (const auto& id : env_ids()) {
    auto a = make_env(id), b = make_env(id);
    EXPECT_EQ(a->reset(42), b->reset(42)) << id;
    EXPECT_NE(a->reset(43), b->reset(42)) << id;
  }
  auto cartpole = make_env("CartPole-v1");
  auto car = make_env("MountainCar-v0");
  for (uint64_t seed = 0; seed < 50; ++seed) {
    for (float v : cartpole->reset(seed)) EXPECT_LE(std::abs(v), 0.05f);
    const auto o = car->reset(seed);
    EXPECT_GE(o[0], -0.6f);
    EXPECT_LE(o[0], -0.4f);
    EXPECT_EQ(o[1], 0.f);
  }
}

TEST(Envs, TimeLimitTruncates) {
  auto env = make_env("Pendulum-v1");
  env->reset(0);
  const std::vector<float> zero = {0.f};
  for (int t = 1; t <= 200; ++t) {
    const Step s = env->step(zero);
    EXPECT_FALSE(s.terminated);
    EXPECT_EQ(s.truncated, t == 200);
  }
}

TEST(VectorEnv, AutoresetsAndKeepsTheFinalObservation) {
  VectorEnv envs("CartPole-v1", 3);
  Tensor obs = envs.reset(7);
  auto single = make_env("CartPole-v1");
  EXPECT_EQ(obs.narrow(0, 1, 1).reshape({4}).to_vector<float>(), single->reset(8));  // copy i has seed + i
  int finished = 0;
  for (int t = 0; t < 60; ++t) {
    const VectorStep s = envs.step(zeros({3}, kInt64));  // always left: episodes end in ~10 steps
    for (int64_t i = 0; i < 3; ++i) {
      if (!s.done(i)) continue;
      ++finished;
      const auto last = s.final_observations.select(0, i).to_vector<float>();
      EXPECT_TRUE(std::abs(last[0]) > 2.4f || std::abs(last[2]) > 0.2094f);  // the ended episode's last state
      for (float v : s.observations.select(0, i).to_vector<float>()) EXPECT_LE(std::abs(v), 0.05f);  // a fresh one
    }
    EXPECT_EQ(s.finished_returns.size(), s.finished_lengths.size());
  }
  EXPECT_GE(finished, 6);
  expect_error([&] { envs.step(full({3}, 5.0, kInt64)); }, {"Discrete(2)"});
  expect_error([&] { envs.step(zeros({2}, kInt64)); }, {"[3]", "[2]"});
}

TEST(VectorEnv, ThreadsGiveTheSameSteps) {
  VectorEnv one("Acrobot-v1", 4, 1), two("Acrobot-v1", 4, 2);
  EXPECT_TRUE(one.reset(1).to_vector<float>() == two.reset(1).to_vector<float>());
  for (int t = 0; t < 20; ++t) {
    const Tensor a = full({4}, t % 3, kInt64);
    EXPECT_EQ(one.step(a).observations.to_vector<float>(), two.step(a).observations.to_vector<float>());
  }
}

}  // namespace
}  // namespace strata::rl
