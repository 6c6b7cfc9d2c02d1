// Shared parameters in the hub (lifecycle/shared_parameters.hpp): the versioned row round-trips,
// a push that loses the race is applied again on the newer row, concurrent pushers on separate
// connections lose no update, and apply_gradients steps exactly as a local optimizer does; on
// SQLite and on a throw-away PostgreSQL (skipped where it is not installed).
#include <gtest/gtest.h>

#include <thread>

#include "hub/hub_fixture.hpp"
#include "strata/hub/hub.hpp"
#include "strata/lifecycle/shared_parameters.hpp"
#include "strata/optim/rmsprop.hpp"
#include "strata/optim/sgd.hpp"
#include "support/expect_error.hpp"

namespace strata::lifecycle {
namespace {

using SharedParametersTest = hub::testing::HubTest;
INSTANTIATE_TEST_SUITE_P(Backends, SharedParametersTest, ::testing::Values("sqlite", "postgres"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });
using strata::testing::expect_error;

float first_value(const SharedSnapshot& s, const std::string& weight) {
  for (const auto& [name, t] : s.weights)
    if (name == weight) return t.to_vector<float>().at(0);
  ADD_FAILURE() << "no weight " << weight;
  return 0;
}

// Adds `amount` to every element of weight "w" and 1 to counter "pushes".
std::function<void(SharedSnapshot&)> add_to_w(float amount) {
  return [amount](SharedSnapshot& s) {
    for (auto& [name, t] : s.weights)
      if (name == "w") t = t + amount;
    s.counters["pushes"] += 1;
  };
}

TEST_P(SharedParametersTest, CreatePullRoundTripAndCreateKeepsAnExistingRow) {
  auto hub = open();
  SharedParameters shared(hub, "net");
  EXPECT_FALSE(shared.try_pull().has_value());
  EXPECT_FALSE(shared.version().has_value());
  const Tensor w = from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor b = from_vector(std::vector<double>{-1.5});
  const SharedSnapshot made = shared.create({{"dense/W", w}, {"dense/b", b}});
  EXPECT_EQ(made.version, 0);
  ASSERT_EQ(made.weights.size(), 2u);
  EXPECT_EQ(made.weights[0].first, "dense/W");
  EXPECT_EQ(made.weights[0].second.shape(), w.shape());
  EXPECT_EQ(made.weights[0].second.to_vector<float>(), w.to_vector<float>());
  EXPECT_EQ(made.weights[1].second.dtype(), kFloat64);
  EXPECT_EQ(made.weights[1].second.to_vector<double>(), std::vector<double>{-1.5});
  EXPECT_TRUE(made.optimizer_state.empty());
  EXPECT_TRUE(made.counters.empty());

  // A second create (another process starting late) keeps the first row.
  SharedParameters again(hub, "net");
  const SharedSnapshot kept = again.create({{"dense/W", zeros({2, 3})}, {"dense/b", zeros({1})}});
  EXPECT_EQ(kept.weights[0].second.to_vector<float>(), w.to_vector<float>());

  // Another project of the same hub has no such row.
  auto other = open({.project = "other"});
  EXPECT_FALSE(SharedParameters(other, "net").version().has_value());
  expect_error([&] { SharedParameters(other, "net").pull(); }, {"'net'", "do not exist"});
  shared.remove();
  EXPECT_FALSE(shared.version().has_value());
}

TEST_P(SharedParametersTest, APushThatLosesTheRaceIsAppliedAgainOnTheNewerRow) {
  auto hub_a = open();
  auto hub_b = open();  // a second connection, as another process has
  SharedParameters a(hub_a, "p"), b(hub_b, "p");
  a.create({{"w", zeros({3})}});
  int calls = 0;
  const PushResult r = a.push([&](SharedSnapshot& s) {
    if (calls++ == 0) {
      // While this update is computed, another pusher stores version 1 (+10).
      const PushResult other = b.push(add_to_w(10));
      EXPECT_EQ(other.version, 1);
      EXPECT_EQ(other.conflicts, 0);
    }
    add_to_w(1)(s);
  });
  EXPECT_EQ(calls, 2);  // the first result was refused, the update ran again on version 1
  EXPECT_EQ(r.conflicts, 1);
  EXPECT_EQ(r.version, 2);
  const SharedSnapshot latest = b.pull();
  EXPECT_EQ(latest.version, 2);
  EXPECT_EQ(latest.weights[0].second.to_vector<float>(), (std::vector<float>{11, 11, 11}));
  EXPECT_EQ(latest.counters.at("pushes"), 2);
  EXPECT_EQ(r.latest.weights[0].second.to_vector<float>(), latest.weights[0].second.to_vector<float>());
}

TEST_P(SharedParametersTest, ConcurrentPushersOnSeparateConnectionsLoseNoUpdate) {
  {
    auto hub = open();
    SharedParameters(hub, "p").create({{"w", zeros({4})}});
  }
  constexpr int kPushers = 3, kPushes = 40;
  std::vector<int64_t> conflicts(kPushers, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < kPushers; ++i) {
    threads.emplace_back([&, i] {
      auto hub = open();
      SharedParameters shared(hub, "p");
      for (int k = 0; k < kPushes; ++k) conflicts[i] += shared.push(add_to_w(static_cast<float>(i + 1))).conflicts;
    });
  }
  for (auto& t : threads) t.join();
  auto hub = open();
  const SharedSnapshot s = SharedParameters(hub, "p").pull();
  EXPECT_EQ(s.version, kPushers * kPushes);
  // Each pusher added i + 1 per push: a lost or doubly applied update would change the sum.
  const float expected = kPushes * (1 + 2 + 3);
  EXPECT_EQ(s.weights[0].second.to_vector<float>(), std::vector<float>(4, expected));
  EXPECT_EQ(s.counters.at("pushes"), kPushers * kPushes);
  std::printf("conflicts retried: %lld, %lld, %lld\n", static_cast<long long>(conflicts[0]),
              static_cast<long long>(conflicts[1]), static_cast<long long>(conflicts[2]));
}

TEST_P(SharedParametersTest, ApplyGradientsStepsAsALocalOptimizerDoes) {
  auto hub = open();
  SharedParameters shared(hub, "net");
  const Tensor w0 = from_vector(std::vector<float>{0.5f, -1.0f, 2.0f}, {3});
  const Tensor b0 = from_vector(std::vector<float>{0.25f}, {1});
  shared.create({{"w", w0}, {"b", b0}});
  const std::vector<Tensor> grads_w = {from_vector(std::vector<float>{0.1f, -0.2f, 0.3f}, {3}),
                                       from_vector(std::vector<float>{-0.4f, 0.5f, 0.05f}, {3})};
  const std::vector<Tensor> grads_b = {from_vector(std::vector<float>{1.0f}, {1}),
                                       from_vector(std::vector<float>{-2.0f}, {1})};
  const optim::RMSpropOptions options{.lr = 0.01, .alpha = 0.9, .eps = 1e-5};
  const SharedOptimizerFactory make = [&](std::vector<Tensor> params, const SharedSnapshot& latest) {
    EXPECT_EQ(latest.counters.at("steps"), 10 * (latest.version + 1));  // this push's counters already added
    return std::make_unique<optim::RMSprop>(std::move(params), options);
  };
  // The reference: the same two steps by one RMSprop over local copies.
  Tensor w = w0.clone().requires_grad_(true), b = b0.clone().requires_grad_(true);
  optim::RMSprop local({w, b}, options);
  for (size_t k = 0; k < 2; ++k) {
    const PushResult r = shared.apply_gradients(
        {.gradients = {{"w", grads_w[k]}, {"b", grads_b[k]}}, .counters = {{"steps", 10}}}, make);
    EXPECT_EQ(r.version, static_cast<int64_t>(k + 1));
    w.set_grad(grads_w[k]);
    b.set_grad(grads_b[k]);
    local.step();
  }
  const SharedSnapshot s = shared.pull();
  EXPECT_EQ(s.weights[0].second.to_vector<float>(), w.to_vector<float>());
  EXPECT_EQ(s.weights[1].second.to_vector<float>(), b.to_vector<float>());
  EXPECT_NE(s.weights[0].second.to_vector<float>(), w0.to_vector<float>());
  EXPECT_EQ(s.counters.at("steps"), 20);
  EXPECT_FALSE(s.weights[0].second.requires_grad());

  // A gradient for only one weight leaves the other as it was.
  const auto sgd = [](std::vector<Tensor> params, const SharedSnapshot&) {
    return std::make_unique<optim::SGD>(std::move(params), optim::SGDOptions{.lr = 0.5});
  };
  shared.remove();
  shared.create({{"w", w0}, {"b", b0}});
  shared.apply_gradients({.gradients = {{"b", from_vector(std::vector<float>{1.0f}, {1})}}}, sgd);
  const SharedSnapshot only_b = shared.pull();
  EXPECT_EQ(only_b.weights[0].second.to_vector<float>(), w0.to_vector<float>());
  EXPECT_EQ(only_b.weights[1].second.to_vector<float>(), std::vector<float>{0.25f - 0.5f});
}

TEST_P(SharedParametersTest, BadGradientsAndUpdatesAreErrorsThatStoreNothing) {
  auto hub = open();
  SharedParameters shared(hub, "net");
  shared.create({{"w", zeros({3})}});
  const auto sgd = [](std::vector<Tensor> params, const SharedSnapshot&) {
    return std::make_unique<optim::SGD>(std::move(params), optim::SGDOptions{.lr = 0.1});
  };
  expect_error(
      [&] {
        shared.apply_gradients({.gradients = {{"v", zeros({3})}}}, sgd);
      },
      {"'net'", "'v'", "not one of"});
  expect_error([&] { shared.apply_gradients({.gradients = {{"w", zeros({2})}}}, sgd); }, {"'w'", "[2]", "[3]"});
  expect_error([&] { shared.push([](SharedSnapshot& s) { s.weights[0].first = "renamed"; }); }, {"renamed", "'w'"});
  expect_error([&] { shared.push([](SharedSnapshot& s) { s.weights[0].second = zeros({4}); }); }, {"shape", "'w'"});
  expect_error([&] { shared.push([](SharedSnapshot& s) { s.weights.clear(); }); }, {"keep the 1 weights"});
  EXPECT_EQ(shared.version(), 0);
  expect_error([&] { SharedParameters(hub, ""); }, {"name is empty"});
  expect_error([&] { shared.create({{"w", zeros({1})}, {"w", zeros({1})}}); }, {"'w'", "twice"});
}

}  // namespace
}  // namespace strata::lifecycle
