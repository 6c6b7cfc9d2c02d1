#include "strata/train/lr_scheduler.hpp"

#include "strata/core/error.hpp"
#include "strata/train/monitor.hpp"

namespace strata::train {

LearningRateScheduler::LearningRateScheduler(std::shared_ptr<optim::LRSchedule> schedule)
    : schedule_(std::move(schedule)) {
  STRATA_CHECK(schedule_ != nullptr, "LearningRateScheduler: the schedule is null");
}

LearningRateScheduler::LearningRateScheduler(std::shared_ptr<optim::ReduceLROnPlateau> plateau, std::string monitor)
    : plateau_(std::move(plateau)), monitor_(std::move(monitor)) {
  STRATA_CHECK(plateau_ != nullptr, "LearningRateScheduler: the ReduceLROnPlateau is null");
}

LearningRateScheduler::LearningRateScheduler(std::function<double(int64_t, double)> fn) : fn_(std::move(fn)) {
  STRATA_CHECK(fn_ != nullptr, "LearningRateScheduler: the schedule function is empty");
}

void LearningRateScheduler::on_epoch_begin(int64_t epoch) {
  if (fn_) optimizer().set_learning_rate(fn_(epoch, optimizer().learning_rate()));
}

void LearningRateScheduler::on_epoch_end(int64_t epoch, Logs& logs) {
  if (schedule_) schedule_->step();
  if (plateau_) plateau_->step(Monitor(monitor_).read(logs, "LearningRateScheduler"));
}

}  // namespace strata::train
