// EarlyStopping: ends training when a monitored value (by default "val_loss") has not improved
// for `patience` epochs, as Keras's EarlyStopping; optionally puts back the weights of the best
// epoch when training ends (stopped early or not).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"
#include "strata/train/callback.hpp"
#include "strata/train/monitor.hpp"

namespace strata::train {

struct EarlyStoppingOptions {
  std::string monitor = "val_loss";
  int64_t patience = 0;  // training stops after this many epochs in a row without improvement (0 as 1, as Keras)
  double min_delta = 0;  // a change smaller than this is no improvement
  MonitorMode mode = MonitorMode::automatic;
  // Snapshot all weights (trainable or not) at each improvement and copy them back at the end.
  bool restore_best_weights = false;
};

class EarlyStopping : public Callback {
 public:
  explicit EarlyStopping(EarlyStoppingOptions options = {});

  int64_t stopped_epoch() const { return stopped_epoch_; }  // the epoch after which it stopped; -1: it did not
  int64_t best_epoch() const { return best_epoch_; }        // -1 before the first epoch
  double best() const { return monitor_.best(); }
  bool restored() const { return restored_; }               // whether it copied the best weights back

  void on_train_begin() override;
  void on_epoch_end(int64_t epoch, Logs& logs) override;
  void on_train_end(const Logs& last_epoch_logs) override;

 private:
  EarlyStoppingOptions options_;
  Monitor monitor_;
  int64_t wait_ = 0, best_epoch_ = -1, stopped_epoch_ = -1;
  bool restored_ = false;
  std::vector<Tensor> best_weights_;
};

}  // namespace strata::train
