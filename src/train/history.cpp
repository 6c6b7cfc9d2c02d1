#include "strata/train/history.hpp"

#include <limits>

#include "strata/core/error.hpp"

namespace strata::train {

void History::append(const Logs& logs) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& [key, value] : logs) {
    auto& column = values_[key];
    column.resize(epochs_, nan);
    column.push_back(value);
  }
  ++epochs_;
  for (auto& [key, column] : values_) column.resize(epochs_, nan);
}

const std::vector<double>& History::operator[](const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) {
    std::string keys;
    for (const auto& kv : values_) keys += (keys.empty() ? "" : ", ") + kv.first;
    throw Error("History: no values for '" + key + "' (it has: " + (keys.empty() ? "nothing" : keys) + ")");
  }
  return it->second;
}

Logs History::at(int64_t epoch) const {
  STRATA_CHECK(epoch >= 0 && epoch < epochs_, "History: epoch ", epoch, " is outside [0, ", epochs_, ")");
  Logs logs;
  for (const auto& [key, column] : values_) logs[key] = column[epoch];
  return logs;
}

std::string key_list(const Logs& logs) {
  std::string out;
  for (const auto& kv : logs) out += (out.empty() ? "" : ", ") + kv.first;
  return out.empty() ? "nothing" : out;
}

}  // namespace strata::train
