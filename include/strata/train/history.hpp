// Logs and History: what fit() reports. Logs are one epoch's (or batch's) values by key:
// "loss" and each metric's name for the training data, the same keys prefixed "val_" for the
// validation data, and "lr". History keeps every epoch's logs, as Keras's History.history.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace strata::train {

using Logs = std::map<std::string, double>;

class History {
 public:
  // Adds one epoch. A key missing from this epoch gets NaN; a new key gets NaN for earlier ones.
  void append(const Logs& logs);

  int64_t epochs() const { return epochs_; }
  bool contains(const std::string& key) const { return values_.count(key) != 0; }
  // One value per epoch; throws strata::Error listing the keys there are when `key` is not one.
  const std::vector<double>& operator[](const std::string& key) const;
  const std::map<std::string, std::vector<double>>& values() const { return values_; }
  // The logs of epoch `epoch` (0-based).
  Logs at(int64_t epoch) const;

 private:
  std::map<std::string, std::vector<double>> values_;
  int64_t epochs_ = 0;
};

// "accuracy, loss, val_loss": the keys of logs or a history, for error messages.
std::string key_list(const Logs& logs);

}  // namespace strata::train
