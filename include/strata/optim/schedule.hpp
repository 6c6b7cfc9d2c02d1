// Learning-rate schedules: each step() moves one epoch (or iteration) on and sets the
// optimizer's learning rate, following torch.optim.lr_scheduler step for step. The rate at
// construction (epoch 0) is the optimizer's rate times the schedule's factor at 0.
//   optim::CosineAnnealingLR sched(adam, /*t_max=*/50);
//   for (...) { train_one_epoch(); sched.step(); }
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/optim/optimizer.hpp"

namespace strata::optim {

// A schedule that is a function of the epoch count. The optimizer must outlive it.
class LRSchedule {
 public:
  virtual ~LRSchedule() = default;
  void step();  // epoch += 1, then the optimizer's lr = lr_at(epoch)
  int64_t epoch() const { return epoch_; }
  double base_lr() const { return base_lr_; }  // the optimizer's lr when the schedule was made
  virtual double lr_at(int64_t epoch) const = 0;

 protected:
  explicit LRSchedule(Optimizer& optimizer);
  void apply();  // sets lr_at(epoch()); the derived constructor calls it for epoch 0

  Optimizer& optimizer_;
  double base_lr_;
  int64_t epoch_ = 0;
};

// base_lr * gamma^(epoch / step_size)
class StepLR : public LRSchedule {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);
  double lr_at(int64_t epoch) const override;

 private:
  int64_t step_size_;
  double gamma_;
};

// base_lr * gamma^(number of milestones <= epoch)
class MultiStepLR : public LRSchedule {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1);
  double lr_at(int64_t epoch) const override;

 private:
  std::vector<int64_t> milestones_;  // sorted
  double gamma_;
};

// base_lr * gamma^epoch
class ExponentialLR : public LRSchedule {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);
  double lr_at(int64_t epoch) const override;

 private:
  double gamma_;
};

// eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / t_max)) / 2 (SGDR without restarts;
// past t_max the cosine rises again, as in PyTorch).
class CosineAnnealingLR : public LRSchedule {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t t_max, double eta_min = 0);
  double lr_at(int64_t epoch) const override;

 private:
  int64_t t_max_;
  double eta_min_;
};

// Linear warm-up from start_factor * base_lr at epoch 0 to base_lr at epoch warmup_steps, then
// constant: PyTorch's LinearLR(start_factor, end_factor=1, total_iters=warmup_steps), whose
// default start_factor is 1/3.
class LinearWarmup : public LRSchedule {
 public:
  LinearWarmup(Optimizer& optimizer, int64_t warmup_steps, double start_factor = 1.0 / 3);
  double lr_at(int64_t epoch) const override;

 private:
  int64_t warmup_steps_;
  double start_factor_;
};

// Multiplies the learning rate by `factor` when a metric has not improved for more than
// `patience` epochs; exactly torch.optim.lr_scheduler.ReduceLROnPlateau.
struct PlateauOptions {
  enum class Mode { min, max };             // min: lower is better (a loss); max: an accuracy
  enum class ThresholdMode { rel, abs };
  Mode mode = Mode::min;
  double factor = 0.1;                      // in [0, 1)
  int64_t patience = 10;                    // bad epochs tolerated before a reduction
  double threshold = 1e-4;                  // how much better counts as better
  ThresholdMode threshold_mode = ThresholdMode::rel;
  int64_t cooldown = 0;                     // epochs after a reduction during which bad ones are not counted
  double min_lr = 0;
  double eps = 1e-8;                        // reductions smaller than this are skipped
};

class ReduceLROnPlateau {
 public:
  explicit ReduceLROnPlateau(Optimizer& optimizer, PlateauOptions options = {});
  void step(double metric);  // once per epoch, with the validation metric
  double best() const { return best_; }
  int64_t num_bad_epochs() const { return num_bad_epochs_; }

 private:
  bool is_better(double metric) const;

  Optimizer& optimizer_;
  PlateauOptions options_;
  double best_;
  int64_t num_bad_epochs_ = 0;
  int64_t cooldown_counter_ = 0;
};

}  // namespace strata::optim
