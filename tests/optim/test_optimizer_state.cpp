// Optimizer::named_state / load_state: k steps, the state through safetensors bytes into a fresh
// optimizer over copies of the parameters, more steps; the parameters must match an
// uninterrupted run bit for bit. Then states that do not fit are refused, naming the entry.
#include <gtest/gtest.h>

#include "support/expect_error.hpp"

#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include "strata/io/safetensors.hpp"
#include "strata/optim/optim.hpp"
#include "strata/strata.hpp"

namespace strata::optim {
namespace {

using Make = std::function<std::unique_ptr<Optimizer>(std::vector<Tensor>)>;

std::vector<Tensor> make_params(uint64_t seed) {
  Generator gen(seed);
  return {randn({3, 4}, {}, &gen).requires_grad_(), randn({4}, {}, &gen).requires_grad_(),
          randn({2}, {}, &gen).requires_grad_()};
}

std::vector<Tensor> copies(const std::vector<Tensor>& ps) {
  std::vector<Tensor> out;
  for (const Tensor& p : ps) out.push_back(p.detach().clone().requires_grad_());
  return out;
}

// A loss whose gradient changes with the step (so the buffers matter); the last parameter gets
// no gradient on odd steps, so its step count lags the others'.
void train_step(Optimizer& opt, int step) {
  const auto& ps = opt.params();
  Tensor loss = sum(sin(ps[0] * (1.0 + 0.1 * step)) * ps[0]) + sum(ps[1] * ps[1] * ps[1]) * 0.1;
  if (step % 2 == 0) loss = loss + sum(exp(ps[2]));
  opt.zero_grad();
  loss.backward();
  opt.step();
}

bool bitwise_equal(const Tensor& a, const Tensor& b) {
  const Tensor ca = a.detach().contiguous(), cb = b.detach().contiguous();
  return ca.shape() == cb.shape() && ca.dtype() == cb.dtype() && std::memcmp(ca.raw_data(), cb.raw_data(), ca.nbytes()) == 0;
}

void expect_resume_is_bitwise_identical(const Make& make) {
  constexpr int kBefore = 3, kAfter = 4;
  auto whole = make(make_params(7));
  for (int s = 0; s < kBefore + kAfter; ++s) train_step(*whole, s);

  auto first = make(make_params(7));
  for (int s = 0; s < kBefore; ++s) train_step(*first, s);
  const std::string bytes = io::to_safetensors(first->named_state());

  auto resumed = make(copies(first->params()));
  resumed->set_learning_rate(123);  // overwritten by the state's rate
  resumed->load_state(io::from_safetensors(bytes).tensors);
  EXPECT_EQ(resumed->learning_rate(), first->learning_rate());
  for (int s = kBefore; s < kBefore + kAfter; ++s) train_step(*resumed, s);

  for (size_t i = 0; i < whole->params().size(); ++i) {
    EXPECT_TRUE(bitwise_equal(whole->params()[i], resumed->params()[i])) << whole->name() << " parameter " << i;
    EXPECT_EQ(whole->state(i).step, resumed->state(i).step) << whole->name() << " parameter " << i;
  }
}

TEST(OptimizerStateTest, SGDMomentumNesterovResumesBitwise) {
  expect_resume_is_bitwise_identical([](std::vector<Tensor> ps) {
    return std::make_unique<SGD>(std::move(ps), SGDOptions{.lr = 0.05, .momentum = 0.9, .nesterov = true});
  });
}

TEST(OptimizerStateTest, AdamAmsgradResumesBitwise) {
  expect_resume_is_bitwise_identical([](std::vector<Tensor> ps) {
    return std::make_unique<Adam>(std::move(ps), AdamOptions{.lr = 0.01, .amsgrad = true});
  });
}

TEST(OptimizerStateTest, AdamWResumesBitwise) {
  expect_resume_is_bitwise_identical([](std::vector<Tensor> ps) {
    return std::make_unique<AdamW>(std::move(ps), AdamWOptions{.lr = 0.01, .weight_decay = 0.01});
  });
}

TEST(OptimizerStateTest, RMSpropCenteredMomentumResumesBitwise) {
  expect_resume_is_bitwise_identical([](std::vector<Tensor> ps) {
    return std::make_unique<RMSprop>(std::move(ps), RMSpropOptions{.lr = 0.01, .momentum = 0.5, .centered = true});
  });
}

TEST(OptimizerStateTest, AdagradAdadeltaAdamaxResumeBitwise) {
  expect_resume_is_bitwise_identical([](std::vector<Tensor> ps) {
    return std::make_unique<Adagrad>(std::move(ps), AdagradOptions{.lr = 0.1, .lr_decay = 0.01});
  });
  expect_resume_is_bitwise_identical([](std::vector<Tensor> ps) { return std::make_unique<Adadelta>(std::move(ps)); });
  expect_resume_is_bitwise_identical([](std::vector<Tensor> ps) { return std::make_unique<Adamax>(std::move(ps)); });
}

TEST(OptimizerStateTest, NamedStateIsACopyWithOnlyUpdatedParameters) {
  Adam adam(make_params(1), {.lr = 0.01});
  train_step(adam, 1);  // the last parameter gets no gradient
  io::NamedTensors state = adam.named_state();
  std::vector<std::string> names;
  for (const auto& [name, t] : state) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"lr", "params", "0.step", "0.exp_avg", "0.exp_avg_sq", "1.step",
                                             "1.exp_avg", "1.exp_avg_sq"}));
  const Tensor before = state[3].second.clone();
  train_step(adam, 2);
  EXPECT_TRUE(bitwise_equal(before, state[3].second));
}

TEST(OptimizerStateTest, StatesThatDoNotFitAreRefusedNamingTheEntry) {
  Adam adam(make_params(1), {.lr = 0.01});
  train_step(adam, 0);
  const io::NamedTensors good = adam.named_state();
  auto with = [&](const std::function<void(io::NamedTensors&)>& change) {
    io::NamedTensors s = good;
    change(s);
    return s;
  };
  auto fresh = [] { return Adam(make_params(1), {.lr = 0.01}); };
  using testing::expect_error;

  expect_error([&] { SGD(make_params(1), {.momentum = 0.9}).load_state(good); },
               {"SGD", "'0.exp_avg'", "does not use"});
  expect_error([&] { Adam({make_params(1)[0]}, {}).load_state(good); }, {"Adam", "3 parameters", "has 1"});
  expect_error([&] { fresh().load_state(with([](auto& s) { s[3].second = zeros({4, 3}); })); },
               {"'0.exp_avg'", "[4, 3]", "parameter 0", "[3, 4]"});
  expect_error([&] { fresh().load_state(with([](auto& s) { s.emplace_back("9.step", s[2].second); })); },
               {"'9.step'", "parameter 9"});
  expect_error([&] { fresh().load_state(with([](auto& s) { s.emplace_back("moments", s[2].second); })); },
               {"unknown state entry 'moments'"});
  expect_error([&] { fresh().load_state(with([](auto& s) { s[2].second = tensor({1.5f}); })); },
               {"'0.step'", "int64"});
  expect_error([&] { fresh().load_state(with([](auto& s) { s[2].second = tensor({int64_t{-1}}).reshape({}); })); },
               {"'0.step'", ">= 0, got -1"});
  expect_error([&] { fresh().load_state(with([](auto& s) { s.erase(s.begin()); })); }, {"lacks", "'lr'"});
  expect_error([&] { fresh().load_state(with([](auto& s) { s[0].second = tensor({-1.0}); })); }, {"lr", ">= 0"});

  // A refused state changes nothing.
  Adam kept = fresh();
  train_step(kept, 0);
  const io::NamedTensors before = kept.named_state();
  expect_error([&] { kept.load_state(with([](auto& s) { s.emplace_back("9.step", s[2].second); })); }, {"'9.step'"});
  const io::NamedTensors after = kept.named_state();
  ASSERT_EQ(before.size(), after.size());
  for (size_t i = 0; i < before.size(); ++i) EXPECT_TRUE(bitwise_equal(before[i].second, after[i].second));
}

}  // namespace
}  // namespace strata::optim
