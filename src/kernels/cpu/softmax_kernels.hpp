// Softmax / log-softmax CPU kernels along one axis, forward and backward (no autograd).
// Inputs of any strides are read through a contiguous copy; outputs are contiguous.
#pragma once
#include "strata/core/tensor.hpp"

namespace strata::kernels::cpu {

// softmax (log = false) or log_softmax (log = true) of x along `axis` (already normalised).
Tensor softmax_forward(const Tensor& x, int axis, bool log);
// dL/dx from dL/dy and the forward output y:
//   softmax: y * (g - sum(g * y)),  log_softmax: g - exp(y) * sum(g).
Tensor softmax_backward(const Tensor& grad_y, const Tensor& y, int axis, bool log);

// Row helpers shared with the loss kernels: over n contiguous values,
// the maximum, and log(sum(exp(x - max))) + max.
template <class T>
T row_max(const T* x, int64_t n);
template <class T>
T row_logsumexp(const T* x, int64_t n);

}  // namespace strata::kernels::cpu
