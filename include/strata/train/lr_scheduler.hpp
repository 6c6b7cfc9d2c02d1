// LearningRateScheduler: changes the optimizer's learning rate between epochs, from an
// optim::LRSchedule (stepped after each epoch), an optim::ReduceLROnPlateau (stepped with a
// monitored value of the epoch's logs), or a function of (epoch, current lr) called before each
// epoch, as Keras's LearningRateScheduler. The schedule must drive fit's optimizer.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "strata/optim/schedule.hpp"
#include "strata/train/callback.hpp"

namespace strata::train {

class LearningRateScheduler : public Callback {
 public:
  explicit LearningRateScheduler(std::shared_ptr<optim::LRSchedule> schedule);
  LearningRateScheduler(std::shared_ptr<optim::ReduceLROnPlateau> plateau, std::string monitor = "val_loss");
  // lr for epoch e = fn(e, the current lr).
  explicit LearningRateScheduler(std::function<double(int64_t epoch, double lr)> fn);

  void on_epoch_begin(int64_t epoch) override;
  void on_epoch_end(int64_t epoch, Logs& logs) override;

 private:
  std::shared_ptr<optim::LRSchedule> schedule_;
  std::shared_ptr<optim::ReduceLROnPlateau> plateau_;
  std::string monitor_;
  std::function<double(int64_t, double)> fn_;
};

}  // namespace strata::train
