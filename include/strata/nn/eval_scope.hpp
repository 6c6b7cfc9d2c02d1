// EvalScope: a layer in eval mode for a scope; its previous mode comes back however the scope
// ends (evaluation, prediction, a static model's shape probes).
#pragma once
#include "strata/nn/layer.hpp"

namespace strata::nn {

class EvalScope {
 public:
  explicit EvalScope(Layer& layer) : layer_(layer), was_training_(layer.training()) { layer_.eval(); }
  ~EvalScope() { layer_.train(was_training_); }
  EvalScope(const EvalScope&) = delete;
  EvalScope& operator=(const EvalScope&) = delete;

 private:
  Layer& layer_;
  bool was_training_;
};

}  // namespace strata::nn
