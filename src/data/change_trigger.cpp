#include "strata/data/change_trigger.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace strata::data {

ChangeTrigger::ChangeTrigger(ChangeThresholds thresholds, Callback fire, const std::vector<Example>& initial)
    : thresholds_(thresholds), fire_(std::move(fire)) {
  STRATA_CHECK(thresholds_.label_shift == 0 || thresholds_.num_classes > 0,
               "ChangeTrigger: watching the label distribution needs num_classes > 0");
  const size_t classes = static_cast<size_t>(std::max<int64_t>(thresholds_.num_classes, 0));
  all_counts_.assign(classes, 0);
  new_counts_.assign(classes, 0);
  for (const Example& ex : initial) {
    if (thresholds_.label_shift > 0) ++all_counts_[label_of(ex)];
    ++total_;
  }
  baseline_counts_ = all_counts_;
  baseline_total_ = total_;
}

int64_t ChangeTrigger::label_of(const Example& ex) const {
  const int f = thresholds_.label_field;
  STRATA_CHECK(f >= 0 && f < static_cast<int>(ex.size()) && ex[f].numel() == 1, "ChangeTrigger: expected a scalar label at field ",
               f, " of the example");
  const auto label = ex[f].item<int64_t>();
  STRATA_CHECK(label >= 0 && label < thresholds_.num_classes, "ChangeTrigger: label ", label, " out of range [0, ",
               thresholds_.num_classes, ")");
  return label;
}

// Total variation distance between the new samples' label histogram and the baseline's.
double ChangeTrigger::shift_locked() const {
  if (thresholds_.label_shift <= 0 || new_ < thresholds_.min_shift_samples || baseline_total_ == 0) return 0;
  double distance = 0;
  for (size_t c = 0; c < new_counts_.size(); ++c)
    distance += std::abs(static_cast<double>(new_counts_[c]) / new_ -
                         static_cast<double>(baseline_counts_[c]) / baseline_total_);
  return distance / 2;
}

void ChangeTrigger::observe(const Example& example) {
  std::optional<ChangeReport> report;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (thresholds_.label_shift > 0) {
      const int64_t label = label_of(example);
      ++all_counts_[label];
      ++new_counts_[label];
    }
    ++total_;
    ++new_;
    const double shift = shift_locked();
    const char* reason = nullptr;
    if (thresholds_.new_samples > 0 && new_ >= thresholds_.new_samples) reason = "new_samples";
    else if (thresholds_.fraction > 0 && new_ >= thresholds_.fraction * std::max<int64_t>(baseline_total_, 1)) reason = "fraction";
    else if (thresholds_.label_shift > 0 && shift >= thresholds_.label_shift) reason = "label_shift";
    if (reason) {
      report = ChangeReport{reason, new_, total_, shift};
      ++fired_;
      new_ = 0;
      baseline_total_ = total_;
      baseline_counts_ = all_counts_;
      std::fill(new_counts_.begin(), new_counts_.end(), 0);
    }
  }
  if (report && fire_) fire_(*report);  // outside the lock: the callback may observe more
}

void ChangeTrigger::watch(AppendableStream& stream) {
  stream.on_append([this](const Example& ex, int64_t) { observe(ex); });
}

int64_t ChangeTrigger::fired() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return fired_;
}

}  // namespace strata::data
