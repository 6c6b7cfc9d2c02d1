// Monitor: one key of the epoch logs watched for improvement, as EarlyStopping and
// ModelCheckpoint watch "val_loss". Mode auto reads "acc", "accuracy", "precision", "recall",
// "f1" (any key containing them) as higher-is-better and everything else as lower-is-better.
#pragma once
#include <string>

#include "strata/train/history.hpp"

namespace strata::train {

enum class MonitorMode { automatic, min, max };

class Monitor {
 public:
  // An improvement must beat the best value by more than min_delta (>= 0).
  Monitor(std::string key, MonitorMode mode = MonitorMode::automatic, double min_delta = 0);

  // logs[key]; throws strata::Error naming `who` and the keys there are when it is missing.
  double read(const Logs& logs, const char* who) const;
  // Whether `value` improves on the best so far (always true before the first value; never for NaN).
  bool improves(double value) const;
  // Records `value` as the best when it improves on it; returns whether it did.
  bool update(double value);
  void reset();

  const std::string& key() const { return key_; }
  bool higher_is_better() const { return higher_is_better_; }
  double best() const { return best_; }  // +-infinity before the first value

 private:
  std::string key_;
  bool higher_is_better_;
  double min_delta_;
  double best_;
};

}  // namespace strata::train
