// HubLogger: writes training metrics into a hub run (hub::Run), so runs can be compared and
// plotted later (`strata serve`). Per batch (every n steps): the running "loss" and metrics as
// "batch_<key>" in the train split at step = batches trained so far. Per epoch: the train keys
// in the train split and the "val_" keys, without their prefix, in the validation split, at
// step = epoch (from 0).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "strata/hub/hub.hpp"
#include "strata/train/callback.hpp"

namespace strata::lifecycle {

class HubLogger : public train::Callback {
 public:
  bool rank_zero_only() const override { return true; }
  // Into a run the caller made and owns; it must outlive training. every_n_steps = 0: epochs only.
  explicit HubLogger(hub::Run& run, int64_t every_n_steps = 1);
  // Into a new run `run_name` of `hub`, created now and finished when training ends.
  HubLogger(hub::Hub& hub, const std::string& run_name, const std::string& config_json = "{}",
            int64_t every_n_steps = 1);

  int64_t run_id() const { return run_->id(); }

  void on_train_begin() override;
  void on_batch_end(int64_t step, const train::Logs& logs) override;
  void on_epoch_end(int64_t epoch, train::Logs& logs) override;
  void on_train_end(const train::Logs& last_epoch_logs) override;

 private:
  std::optional<hub::Run> owned_;
  hub::Run* run_;
  int64_t every_n_steps_;
};

}  // namespace strata::lifecycle
