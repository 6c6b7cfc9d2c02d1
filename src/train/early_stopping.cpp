#include "strata/train/early_stopping.hpp"

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/error.hpp"
#include "strata/nn/layer.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::train {

EarlyStopping::EarlyStopping(EarlyStoppingOptions options)
    : options_(std::move(options)), monitor_(options_.monitor, options_.mode, options_.min_delta) {
  STRATA_CHECK(options_.patience >= 0, "EarlyStopping: patience must be >= 0, got ", options_.patience);
}

void EarlyStopping::on_train_begin() {
  monitor_.reset();
  wait_ = 0;
  best_epoch_ = stopped_epoch_ = -1;
  restored_ = false;
  best_weights_.clear();
}

void EarlyStopping::on_epoch_end(int64_t epoch, Logs& logs) {
  if (monitor_.update(monitor_.read(logs, "EarlyStopping"))) {
    best_epoch_ = epoch;
    wait_ = 0;
    if (options_.restore_best_weights) {
      NoGradGuard no_grad;
      best_weights_.clear();
      for (const Tensor& w : model().all_weights()) best_weights_.push_back(w.detach().clone());
    }
    return;
  }
  if (++wait_ >= options_.patience) {
    stopped_epoch_ = epoch;
    stop_training();
  }
}

void EarlyStopping::on_train_end(const Logs&) {
  if (!options_.restore_best_weights || best_weights_.empty()) return;
  std::vector<Tensor> weights = model().all_weights();
  STRATA_CHECK(weights.size() == best_weights_.size(), "EarlyStopping: the model has ", weights.size(),
               " weights now but had ", best_weights_.size(), " at its best epoch");
  NoGradGuard no_grad;
  for (size_t i = 0; i < weights.size(); ++i) copy_(weights[i], best_weights_[i]);
  restored_ = true;
}

}  // namespace strata::train
