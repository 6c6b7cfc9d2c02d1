#include "strata/train/model_checkpoint.hpp"

#include <cmath>

#include "strata/core/error.hpp"
#include "strata/nn/layer.hpp"
#include "strata/train/hub_models.hpp"

namespace strata::train {

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
}

void ModelCheckpoint::on_epoch_end(int64_t epoch, Logs& logs) {
  const bool improved = monitor_.update(monitor_.read(logs, "ModelCheckpoint"));
  if (options_.save_best_only && !improved) return;
  hub::ModelMeta meta;
  meta.architecture = options_.architecture.empty() ? architecture_of(model()) : options_.architecture;
  for (const auto& [key, value] : logs)
    if (std::isfinite(value)) meta.metrics[key] = value;
  meta.tags = options_.tags;
  meta.values["epoch"] = std::to_string(epoch);
  meta.run_id = options_.run_id;
  versions_.push_back(hub_.save_model(model_name_, model().named_weights(), meta));
}

}  // namespace strata::train
