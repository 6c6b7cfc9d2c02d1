// CSVLogger: one row per epoch, "epoch" (from 0) then the epoch's logs in key order, as Keras's
// CSVLogger. The columns are the first epoch's keys; a later key missing is an empty field.
#pragma once
#include <fstream>
#include <string>
#include <vector>

#include "strata/train/callback.hpp"

namespace strata::train {

class CSVLogger : public Callback {
 public:
  bool rank_zero_only() const override { return true; }
  // append: add rows to an existing file (no second header when it is not empty).
  explicit CSVLogger(std::string path, char separator = ',', bool append = false);

  void on_train_begin() override;
  void on_epoch_end(int64_t epoch, Logs& logs) override;
  void on_train_end(const Logs& last_epoch_logs) override;

 private:
  std::string path_;
  char separator_;
  bool append_;
  bool header_written_ = false;
  std::vector<std::string> columns_;
  std::ofstream file_;
};

}  // namespace strata::train
