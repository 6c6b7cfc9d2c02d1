// OnlineRetraining: online data turned into retraining tasks. Examples arrive (observe, or a
// watched data::AppendableStream); a data::ChangeTrigger decides when they changed enough, and
// each firing, or an accuracy on newly labelled samples below a threshold, stores every example
// seen so far as a new version of a hub dataset and submits a task of the retraining kind keyed
// (input dataset "name:version", model). A worker running that kind saves the next model version.
#pragma once
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "strata/data/appendable_stream.hpp"
#include "strata/data/change_trigger.hpp"
#include "strata/hub/hub.hpp"
#include "strata/workflow/queue.hpp"

namespace strata::workflow {

struct RetrainingSpec {
  std::string dataset{};                          // hub dataset the examples are stored in
  std::string model{};                            // the task's model key: what it retrains
  std::string kind{};                             // the retraining task kind (TaskRegistry)
  std::string params = "{}";                      // its parameters
  std::vector<std::string> fields = {"x", "y"};   // dataset tensor names of the examples' fields
};

class OnlineRetraining {
 public:
  // `hub` must outlive this. `initial` is the data the current model was trained on.
  OnlineRetraining(hub::Hub& hub, RetrainingSpec spec, data::ChangeThresholds thresholds,
                   std::vector<data::Example> initial = {});

  // Counts one new example (thread-safe); may store a dataset version and submit a task.
  void observe(const data::Example& example);
  // Observes every example appended to `stream` from now on. This must outlive the stream.
  void watch(data::AppendableStream& stream);
  // The current model's accuracy on newly labelled samples: below `threshold`, retrains now
  // (returns true) whatever the trigger says.
  bool check_accuracy(double accuracy, double threshold);

  std::vector<int64_t> submitted() const;  // the tasks' ids, oldest first

 private:
  void retrain(const std::string& reason);  // with mutex_ held

  hub::Hub& hub_;
  Queue queue_;
  RetrainingSpec spec_;
  mutable std::mutex mutex_;
  std::vector<data::Example> examples_;
  std::vector<int64_t> submitted_;
  data::ChangeTrigger trigger_;
};

}  // namespace strata::workflow
