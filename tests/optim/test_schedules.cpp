// Schedules against learning-rate sequences worked out by hand from torch.optim.lr_scheduler's
// definitions (epoch 0 is the rate right after construction).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "strata/optim/optim.hpp"
#include "strata/strata.hpp"

namespace strata::optim {
namespace {

struct Fixture {
  Tensor w = zeros({2}).requires_grad_();
  SGD opt;
  explicit Fixture(double lr) : opt({w}, {.lr = lr}) {}
};

// The optimizer's rate at epochs 0, 1, ... as the schedule steps.
template <class S>
std::vector<double> rates(Optimizer& opt, S& sched, int epochs) {
  std::vector<double> out = {opt.learning_rate()};
  for (int e = 1; e < epochs; ++e) {
    sched.step();
    out.push_back(opt.learning_rate());
  }
  return out;
}

void expect_rates(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << "epoch " << i;
}

TEST(ScheduleTest, StepLR) {
  Fixture f(1.0);
  StepLR s(f.opt, 2, 0.5);
  expect_rates(rates(f.opt, s, 6), {1, 1, 0.5, 0.5, 0.25, 0.25});
  EXPECT_EQ(s.epoch(), 5);
}

TEST(ScheduleTest, MultiStepLRSortsItsMilestones) {
  Fixture f(1.0);
  MultiStepLR s(f.opt, {5, 2}, 0.1);
  expect_rates(rates(f.opt, s, 7), {1, 1, 0.1, 0.1, 0.1, 0.01, 0.01});
}

TEST(ScheduleTest, ExponentialLR) {
  Fixture f(2.0);
  ExponentialLR s(f.opt, 0.9);
  expect_rates(rates(f.opt, s, 4), {2, 1.8, 1.62, 1.458});
}

TEST(ScheduleTest, CosineAnnealingLRRisesAgainPastTMax) {
  Fixture f(1.1);
  CosineAnnealingLR s(f.opt, 4, 0.1);
  const double h = std::sqrt(2.0) / 4;  // (1 +- cos(pi/4)) / 2 = 0.5 +- h
  expect_rates(rates(f.opt, s, 7), {1.1, 0.1 + 0.5 + h, 0.6, 0.1 + 0.5 - h, 0.1, 0.1 + 0.5 - h, 0.6});
}

TEST(ScheduleTest, LinearWarmupThenConstant) {
  Fixture f(0.8);
  LinearWarmup s(f.opt, 4, 0.25);
  expect_rates(rates(f.opt, s, 7), {0.2, 0.35, 0.5, 0.65, 0.8, 0.8, 0.8});
  Fixture g(0.9);
  LinearWarmup d(g.opt, 3);  // PyTorch's LinearLR default start_factor 1/3
  expect_rates(rates(g.opt, d, 3), {0.3, 0.5, 0.7});
}

TEST(ScheduleTest, ReduceLROnPlateauMinWithRelativeThreshold) {
  Fixture f(1.0);
  ReduceLROnPlateau s(f.opt, {.factor = 0.5, .patience = 2, .threshold = 0.1});
  std::vector<double> metrics = {10, 9.5, 9.2, 9.1, 8.0, 8.0, 8.0, 8.0, 7.1};
  std::vector<double> want = {1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25};
  for (size_t i = 0; i < metrics.size(); ++i) {
    s.step(metrics[i]);
    EXPECT_DOUBLE_EQ(f.opt.learning_rate(), want[i]) << "epoch " << i + 1;
  }
  EXPECT_DOUBLE_EQ(s.best(), 7.1);  // 7.1 < 8 * 0.9
}

TEST(ScheduleTest, ReduceLROnPlateauMaxWithCooldownAndMinLr) {
  using O = PlateauOptions;
  Fixture f(1.0);
  ReduceLROnPlateau s(f.opt, {.mode = O::Mode::max, .factor = 0.1, .patience = 0, .threshold = 0.05,
                              .threshold_mode = O::ThresholdMode::abs, .cooldown = 1, .min_lr = 0.02});
  // 0.5 best; 0.52 is not better by 0.05 -> cut; cooldown hides the next bad epoch; then cut to
  // min_lr; then a cut smaller than eps is skipped; 0.6 is better.
  std::vector<double> metrics = {0.5, 0.52, 0.4, 0.4, 0.4, 0.4, 0.6};
  std::vector<double> want = {1, 0.1, 0.1, 0.02, 0.02, 0.02, 0.02};
  for (size_t i = 0; i < metrics.size(); ++i) {
    s.step(metrics[i]);
    EXPECT_DOUBLE_EQ(f.opt.learning_rate(), want[i]) << "epoch " << i + 1;
  }
  EXPECT_DOUBLE_EQ(s.best(), 0.6);
}

TEST(ScheduleTest, ASchedulesRateIsWhatTheOptimizerUses) {
  Tensor w = tensor({1.0}).requires_grad_();
  SGD opt({w}, {.lr = 1.0});
  StepLR s(opt, 1, 0.5);
  for (int e = 0; e < 3; ++e) {  // gradient 1 each time: w moves by 1, 0.5, 0.25
    opt.zero_grad();
    sum(w).backward();
    opt.step();
    s.step();
  }
  EXPECT_DOUBLE_EQ(w.item<double>(), 1 - 1.75);
}

TEST(ScheduleTest, BadArgumentsThrowNamingTheSchedule) {
  Fixture f(1.0);
  EXPECT_THROW(StepLR(f.opt, 0), Error);
  EXPECT_THROW(CosineAnnealingLR(f.opt, -1), Error);
  EXPECT_THROW(LinearWarmup(f.opt, 5, 1.5), Error);
  try {
    ReduceLROnPlateau(f.opt, {.factor = 1.0});
    ADD_FAILURE() << "factor 1 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ReduceLROnPlateau: factor"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace strata::optim
