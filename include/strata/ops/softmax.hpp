// Softmax and log-softmax along one axis, numerically stable (the maximum is subtracted first).
// The last axis of a contiguous tensor is the fast path (rows in parallel); any axis works.
#pragma once
#include <cstdint>

#include "strata/core/tensor.hpp"

namespace strata {

// exp(x - max) / sum(exp(x - max)) along `axis` (negative counts from the end).
Tensor softmax(const Tensor& x, int64_t axis = -1);
// x - max - log(sum(exp(x - max))) along `axis`; use it rather than log(softmax(x)).
Tensor log_softmax(const Tensor& x, int64_t axis = -1);

}  // namespace strata
