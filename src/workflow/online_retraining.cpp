#include "strata/workflow/online_retraining.hpp"

#include "strata/ops/combine.hpp"

namespace strata::workflow {

OnlineRetraining::OnlineRetraining(hub::Hub& hub, RetrainingSpec spec, data::ChangeThresholds thresholds,
                                   std::vector<data::Example> initial)
    : hub_(hub),
      queue_(hub),
      spec_(std::move(spec)),
      examples_(initial),
      // Called from inside observe(), where mutex_ is held.
      trigger_(thresholds, [this](const data::ChangeReport& r) { retrain(r.reason); }, initial) {
  STRATA_CHECK(!spec_.dataset.empty() && !spec_.model.empty() && !spec_.kind.empty(),
               "OnlineRetraining: the dataset, model and kind must all be named");
}

void OnlineRetraining::observe(const data::Example& example) {
  STRATA_CHECK(example.size() == spec_.fields.size(), "OnlineRetraining: expected examples of ",
               spec_.fields.size(), " fields (", spec_.dataset, "), got ", example.size());
  std::lock_guard lock(mutex_);
  examples_.push_back(example);
  trigger_.observe(example);
}

void OnlineRetraining::watch(data::AppendableStream& stream) {
  stream.on_append([this](const data::Example& e, int64_t) { observe(e); });
}

bool OnlineRetraining::check_accuracy(double accuracy, double threshold) {
  if (accuracy >= threshold) return false;
  std::lock_guard lock(mutex_);
  retrain("accuracy " + std::to_string(accuracy) + " below " + std::to_string(threshold));
  return true;
}

std::vector<int64_t> OnlineRetraining::submitted() const {
  std::lock_guard lock(mutex_);
  return submitted_;
}

void OnlineRetraining::retrain(const std::string& reason) {
  STRATA_CHECK(!examples_.empty(), "OnlineRetraining: no data to retrain ", spec_.model, " on");
  io::NamedTensors tensors;
  for (size_t f = 0; f < spec_.fields.size(); ++f) {
    std::vector<Tensor> column;
    column.reserve(examples_.size());
    for (const auto& e : examples_) column.push_back(e[f]);
    tensors.emplace_back(spec_.fields[f], stack(column, 0));
  }
  const int64_t version = hub_.save_dataset(
      spec_.dataset, tensors, {.description = "online data, " + std::to_string(examples_.size()) + " examples (" + reason + ")"});
  submitted_.push_back(queue_.submit({.kind = spec_.kind,
                                      .params = spec_.params,
                                      .name = "retrain " + spec_.model + " (" + reason + ")",
                                      .input_dataset = spec_.dataset + ":" + std::to_string(version),
                                      .model = spec_.model}));
}

}  // namespace strata::workflow
