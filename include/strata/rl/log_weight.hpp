// TensorLayer's tl.rein.log_weight: the mean of log(probs) weighted, a policy-gradient objective
// to maximise (its gradient is mean(weights / probs) per probability).
#pragma once
#include "strata/core/tensor.hpp"

namespace strata::rl {

// mean(log(probs) * weights), probs and weights broadcast against each other (one floating
// dtype). Differentiable in both, as TensorLayer's (detach weights that are returns).
Tensor log_weight(const Tensor& probs, const Tensor& weights);

}  // namespace strata::rl
