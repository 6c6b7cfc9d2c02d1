// The softmax / log-softmax kernel families along one axis; outputs are contiguous.
#pragma once
#include "strata/dispatch/stub.hpp"

namespace strata::dispatch {

// softmax (log = false) or log_softmax (log = true) of x along `axis` (already normalised).
extern Stub<Tensor(const Tensor& x, int axis, bool log)> softmax_forward;
// dL/dx from dL/dy and the forward output y:
//   softmax: y * (g - sum(g * y)),  log_softmax: g - exp(y) * sum(g).
extern Stub<Tensor(const Tensor& grad_y, const Tensor& y, int axis, bool log)> softmax_backward;

}  // namespace strata::dispatch
