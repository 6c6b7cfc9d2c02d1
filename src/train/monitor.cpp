#include "strata/train/monitor.hpp"

#include <cmath>
#include <limits>

#include "strata/core/error.hpp"

namespace strata::train {

namespace {
bool higher_is_better(const std::string& key, MonitorMode mode) {
  if (mode != MonitorMode::automatic) return mode == MonitorMode::max;
  for (const char* word : {"acc", "precision", "recall", "f1"})
    if (key.find(word) != std::string::npos) return true;
  return false;
}
}  // namespace

Monitor::Monitor(std::string key, MonitorMode mode, double min_delta)
    : key_(std::move(key)), higher_is_better_(train::higher_is_better(key_, mode)), min_delta_(min_delta) {
  STRATA_CHECK(!key_.empty(), "Monitor: the key to monitor is empty");
  STRATA_CHECK(min_delta >= 0, "Monitor: min_delta must be >= 0, got ", min_delta);
  reset();
}

void Monitor::reset() {
  best_ = higher_is_better_ ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
}

double Monitor::read(const Logs& logs, const char* who) const {
  auto it = logs.find(key_);
  STRATA_CHECK(it != logs.end(), who, ": monitored key '", key_, "' is not in the epoch logs (they have: ",
               key_list(logs), "); val_ keys need validation data");
  return it->second;
}

bool Monitor::improves(double value) const {
  if (std::isnan(value)) return false;
  return higher_is_better_ ? value > best_ + min_delta_ : value < best_ - min_delta_;
}

bool Monitor::update(double value) {
  if (!improves(value)) return false;
  best_ = value;
  return true;
}

}  // namespace strata::train
