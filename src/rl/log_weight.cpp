#include "strata/rl/log_weight.hpp"

#include "strata/core/error.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"

namespace strata::rl {

Tensor log_weight(const Tensor& probs, const Tensor& weights) {
  STRATA_CHECK(probs.defined() && weights.defined() && probs.numel() > 0,
               "log_weight: expected non-empty probs and weights, got ",
               probs.defined() ? probs.shape().str() : "undefined", " and ",
               weights.defined() ? weights.shape().str() : "undefined");
  return mean(mul(log(probs), weights));
}

}  // namespace strata::rl
