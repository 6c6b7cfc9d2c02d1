#include "strata/lifecycle/hub_logger.hpp"

#include <cmath>
#include <string_view>

#include "strata/core/error.hpp"

namespace strata::lifecycle {

namespace {
constexpr std::string_view kValPrefix = "val_";
// NaN (a metric of no samples) has no place in the store; it is left out.
bool loggable(double v) { return std::isfinite(v); }
}  // namespace

HubLogger::HubLogger(hub::Run& run, int64_t every_n_steps) : run_(&run), every_n_steps_(every_n_steps) {
  STRATA_CHECK(every_n_steps >= 0, "HubLogger: every_n_steps must be >= 0, got ", every_n_steps);
}

HubLogger::HubLogger(hub::Hub& hub, const std::string& run_name, const std::string& config_json, int64_t every_n_steps)
    : owned_(hub.create_run(run_name, config_json)), run_(&*owned_), every_n_steps_(every_n_steps) {
  STRATA_CHECK(every_n_steps >= 0, "HubLogger: every_n_steps must be >= 0, got ", every_n_steps);
}

void HubLogger::on_train_begin() {
  run_->event("train_begin", "{\"epochs\": " + std::to_string(state().epochs) +
                                 ", \"steps_per_epoch\": " + std::to_string(state().steps_per_epoch) + "}");
}

void HubLogger::on_batch_end(int64_t, const train::Logs& logs) {
  const int64_t step = state().global_step;
  if (every_n_steps_ == 0 || step % every_n_steps_ != 0) return;
  for (const auto& [key, value] : logs)
    if (key != "lr" && loggable(value)) run_->log(step, hub::Split::train, "batch_" + key, value);
}

void HubLogger::on_epoch_end(int64_t epoch, train::Logs& logs) {
  for (const auto& [key, value] : logs) {
    if (!loggable(value)) continue;
    if (std::string_view(key).starts_with(kValPrefix))
      run_->log(epoch, hub::Split::validation, key.substr(kValPrefix.size()), value);
    else
      run_->log(epoch, hub::Split::train, key, value);
  }
}

void HubLogger::on_train_end(const train::Logs&) {
  const bool stopped = state().stop_requested;
  run_->event("train_end", "{\"epochs_trained\": " + std::to_string(state().history->epochs()) +
                               ", \"stopped_early\": " + (stopped ? "true" : "false") + "}");
  if (owned_)
    owned_->finish("finished");
  else
    run_->flush();
}

}  // namespace strata::lifecycle
