// ModelCheckpoint: saves the model's named_weights() as a new version in the hub each time a
// monitored value (by default "val_loss") improves, or after every epoch. Each version carries
// the epoch's logs as its metrics (so Hub::find_top_model can pick the best), the epoch, and
// optionally the run and tags; and, unless told otherwise, the optimizer's state and the rest
// of the training state, so that lifecycle::resume_from can continue the run (lifecycle/resume.hpp).
// In a resumed fit, save_best_only compares with the versions saved before initial_epoch.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "strata/hub/hub.hpp"
#include "strata/train/callback.hpp"
#include "strata/train/monitor.hpp"

namespace strata::lifecycle {

struct ModelCheckpointOptions {
  std::string monitor = "val_loss";
  train::MonitorMode mode = train::MonitorMode::automatic;
  double min_delta = 0;
  bool save_best_only = true;     // false: a version after every epoch
  std::optional<int64_t> run_id;  // recorded with each version (e.g. HubLogger::run_id())
  std::vector<std::string> tags;
  std::string architecture;       // empty: a static model's JSON, else the kind ("module", ...) (hub_models.hpp)
  bool include_optimizer = true;  // the optimizer's state as a version of "NAME/optimizer" (Keras's default)
};

class ModelCheckpoint : public train::Callback {
 public:
  bool rank_zero_only() const override { return true; }
  // The hub must outlive training.
  ModelCheckpoint(hub::Hub& hub, std::string model_name, ModelCheckpointOptions options = {});

  // Versions saved during the last fit, in order; the last one is the best when save_best_only.
  const std::vector<int64_t>& versions() const { return versions_; }
  double best() const { return monitor_.best(); }

  void on_train_begin() override;
  void on_epoch_end(int64_t epoch, train::Logs& logs) override;

 private:
  hub::Hub& hub_;
  std::string model_name_;
  ModelCheckpointOptions options_;
  train::Monitor monitor_;
  std::vector<int64_t> versions_;
};

}  // namespace strata::lifecycle
