#include "strata/lifecycle/model_checkpoint.hpp"

#include <cmath>
#include <optional>
#include <vector>

#include "strata/core/error.hpp"
#include "strata/lifecycle/hub_models.hpp"
#include "strata/lifecycle/resume.hpp"
#include "strata/nn/layer.hpp"

namespace strata::lifecycle {

ModelCheckpoint::ModelCheckpoint(hub::Hub& hub, std::string model_name, ModelCheckpointOptions options)
    : hub_(hub),
      model_name_(std::move(model_name)),
      options_(std::move(options)),
      monitor_(options_.monitor, options_.mode, options_.min_delta) {
  STRATA_CHECK(!model_name_.empty(), "ModelCheckpoint: the model name is empty");
}

void ModelCheckpoint::on_train_begin() {
  monitor_.reset();
  versions_.clear();
  // A resumed run must beat the best of the epochs it continues, as the uninterrupted run would.
  const int64_t first = state().initial_epoch;
  if (first == 0 || !options_.save_best_only) return;
  constexpr int64_t kPage = 100;
  for (hub::Page page{.limit = kPage};; page.offset += kPage) {
    const std::vector<hub::ModelInfo> infos = hub_.list_models(model_name_, page);
    for (const hub::ModelInfo& info : infos) {
      const std::optional<int64_t> epoch = checkpoint_epoch(info);
      const auto value = info.meta.metrics.find(options_.monitor);
      if (epoch && *epoch < first && value != info.meta.metrics.end()) monitor_.update(value->second);
    }
    if (static_cast<int64_t>(infos.size()) < kPage) break;
  }
}

void ModelCheckpoint::on_epoch_end(int64_t epoch, train::Logs& logs) {
  const bool improved = monitor_.update(monitor_.read(logs, "ModelCheckpoint"));
  if (options_.save_best_only && !improved) return;
  hub::ModelMeta meta;
  meta.architecture = options_.architecture.empty() ? architecture_of(model()) : options_.architecture;
  for (const auto& [key, value] : logs)
    if (std::isfinite(value)) meta.metrics[key] = value;
  meta.tags = options_.tags;
  meta.run_id = options_.run_id;
  add_training_state(hub_, model_name_, state(), epoch, options_.include_optimizer, meta);
  versions_.push_back(hub_.save_model(model_name_, model().named_weights(), meta));
}

}  // namespace strata::lifecycle
