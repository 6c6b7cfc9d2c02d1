#include "strata/optim/schedule.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "strata/core/error.hpp"

namespace strata::optim {

LRSchedule::LRSchedule(Optimizer& optimizer) : optimizer_(optimizer), base_lr_(optimizer.learning_rate()) {}

void LRSchedule::step() {
  ++epoch_;
  apply();
}

void LRSchedule::apply() { optimizer_.set_learning_rate(lr_at(epoch_)); }

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRSchedule(optimizer), step_size_(step_size), gamma_(gamma) {
  STRATA_CHECK(step_size > 0, "StepLR: step_size must be > 0, got ", step_size);
  STRATA_CHECK(gamma >= 0, "StepLR: gamma must be >= 0, got ", gamma);
  apply();
}

double StepLR::lr_at(int64_t epoch) const {
  return base_lr_ * std::pow(gamma_, static_cast<double>(epoch / step_size_));
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma)
    : LRSchedule(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {
  STRATA_CHECK(gamma >= 0, "MultiStepLR: gamma must be >= 0, got ", gamma);
  std::sort(milestones_.begin(), milestones_.end());
  apply();
}

double MultiStepLR::lr_at(int64_t epoch) const {
  auto passed = std::upper_bound(milestones_.begin(), milestones_.end(), epoch) - milestones_.begin();
  return base_lr_ * std::pow(gamma_, static_cast<double>(passed));
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma) : LRSchedule(optimizer), gamma_(gamma) {
  STRATA_CHECK(gamma >= 0, "ExponentialLR: gamma must be >= 0, got ", gamma);
  apply();
}

double ExponentialLR::lr_at(int64_t epoch) const { return base_lr_ * std::pow(gamma_, static_cast<double>(epoch)); }

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t t_max, double eta_min)
    : LRSchedule(optimizer), t_max_(t_max), eta_min_(eta_min) {
  STRATA_CHECK(t_max > 0, "CosineAnnealingLR: t_max must be > 0, got ", t_max);
  STRATA_CHECK(eta_min >= 0, "CosineAnnealingLR: eta_min must be >= 0, got ", eta_min);
  apply();
}

double CosineAnnealingLR::lr_at(int64_t epoch) const {
  double phase = std::numbers::pi * static_cast<double>(epoch) / static_cast<double>(t_max_);
  return eta_min_ + (base_lr_ - eta_min_) * (1 + std::cos(phase)) / 2;
}

LinearWarmup::LinearWarmup(Optimizer& optimizer, int64_t warmup_steps, double start_factor)
    : LRSchedule(optimizer), warmup_steps_(warmup_steps), start_factor_(start_factor) {
  STRATA_CHECK(warmup_steps > 0, "LinearWarmup: warmup_steps must be > 0, got ", warmup_steps);
  STRATA_CHECK(start_factor >= 0 && start_factor <= 1, "LinearWarmup: start_factor must be in [0, 1], got ",
               start_factor);
  apply();
}

double LinearWarmup::lr_at(int64_t epoch) const {
  double progress = static_cast<double>(std::min(epoch, warmup_steps_)) / static_cast<double>(warmup_steps_);
  return base_lr_ * (start_factor_ + (1 - start_factor_) * progress);
}

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, PlateauOptions options)
    : optimizer_(optimizer),
      options_(options),
      best_(options.mode == PlateauOptions::Mode::min ? INFINITY : -INFINITY) {
  STRATA_CHECK(options.factor >= 0 && options.factor < 1, "ReduceLROnPlateau: factor must be in [0, 1), got ",
               options.factor);
  STRATA_CHECK(options.patience >= 0, "ReduceLROnPlateau: patience must be >= 0, got ", options.patience);
  STRATA_CHECK(options.threshold >= 0, "ReduceLROnPlateau: threshold must be >= 0, got ", options.threshold);
  STRATA_CHECK(options.cooldown >= 0, "ReduceLROnPlateau: cooldown must be >= 0, got ", options.cooldown);
  STRATA_CHECK(options.min_lr >= 0, "ReduceLROnPlateau: min_lr must be >= 0, got ", options.min_lr);
}

bool ReduceLROnPlateau::is_better(double metric) const {
  using M = PlateauOptions::Mode;
  using T = PlateauOptions::ThresholdMode;
  const double th = options_.threshold;
  if (options_.mode == M::min)
    return options_.threshold_mode == T::rel ? metric < best_ * (1 - th) : metric < best_ - th;
  return options_.threshold_mode == T::rel ? metric > best_ * (1 + th) : metric > best_ + th;
}

void ReduceLROnPlateau::step(double metric) {
  if (is_better(metric)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    ++num_bad_epochs_;
  }
  if (cooldown_counter_ > 0) {
    --cooldown_counter_;
    num_bad_epochs_ = 0;
  }
  if (num_bad_epochs_ > options_.patience) {
    double old_lr = optimizer_.learning_rate();
    double new_lr = std::max(old_lr * options_.factor, options_.min_lr);
    if (old_lr - new_lr > options_.eps) optimizer_.set_learning_rate(new_lr);
    cooldown_counter_ = options_.cooldown;
    num_bad_epochs_ = 0;
  }
}

}  // namespace strata::optim
