// A callback that scripts the monitored value: the train tests' EarlyStopping and the lifecycle
// tests' ModelCheckpoint are driven by it.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "strata/autograd/grad_mode.hpp"
#include "strata/nn/layer.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/train/callback.hpp"

namespace strata::train::testing {

// Sets logs[key] = values[epoch] and fills every weight with epoch + 1, so that which epoch's
// weights a model holds can be read off them.
class Scripted : public train::Callback {
 public:
  Scripted(std::string key, std::vector<double> values) : key_(std::move(key)), values_(std::move(values)) {}
  void on_epoch_end(int64_t epoch, train::Logs& logs) override {
    logs[key_] = values_.at(epoch);
    NoGradGuard no_grad;
    for (Tensor w : model().all_weights()) fill_(w, static_cast<double>(epoch + 1));
  }

 private:
  std::string key_;
  std::vector<double> values_;
};

}  // namespace strata::train::testing
