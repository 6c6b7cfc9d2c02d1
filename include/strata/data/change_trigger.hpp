// ChangeTrigger: watches data arriving online and fires when the change since the last firing
// is significant enough to retrain: enough new samples, enough relative to the data set, or a
// shift in the label distribution. The workflow module connects the firing to a retraining task.
#pragma once
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "strata/data/appendable_stream.hpp"

namespace strata::data {

struct ChangeThresholds {
  int64_t new_samples = 0;   // fire after this many new samples (0: off)
  double fraction = 0;       // fire when new samples reach this fraction of the data at the last firing (0: off)
  // Fire when the total variation distance between the label histogram of the new samples and
  // that of the data at the last firing reaches this (0: off). Labels are the scalar integer
  // tensor at label_field, in [0, num_classes); judged once min_shift_samples have arrived.
  double label_shift = 0;
  int label_field = 1;
  int64_t num_classes = 0;
  int64_t min_shift_samples = 30;
};

struct ChangeReport {
  std::string reason;     // "new_samples", "fraction" or "label_shift"
  int64_t new_samples;    // since the last firing
  int64_t total;          // samples seen, all told
  double label_shift;     // the distance measured (0 when labels are not watched)
};

class ChangeTrigger {
 public:
  using Callback = std::function<void(const ChangeReport&)>;
  // `initial` (may be empty) is the data the current model was trained on: the baseline.
  ChangeTrigger(ChangeThresholds thresholds, Callback fire, const std::vector<Example>& initial = {});

  // Counts one new example; fires (at most once per call) and resets the baseline to all data
  // seen so far when the change is significant. Thread-safe.
  void observe(const Example& example);
  // Observes every example appended to `stream` from now on. The trigger must outlive it.
  void watch(AppendableStream& stream);
  int64_t fired() const;

 private:
  int64_t label_of(const Example& example) const;
  double shift_locked() const;

  ChangeThresholds thresholds_;
  Callback fire_;
  mutable std::mutex mutex_;
  int64_t total_ = 0, baseline_total_ = 0, new_ = 0, fired_ = 0;
  std::vector<int64_t> all_counts_, baseline_counts_, new_counts_;
};

}  // namespace strata::data
