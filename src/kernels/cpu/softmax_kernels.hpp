// Softmax / log-softmax CPU kernels (strata/dispatch/softmax.hpp documents them). Inputs of any
// strides are read through a contiguous copy.
#pragma once
#include "strata/core/tensor.hpp"

namespace strata::kernels::cpu {

Tensor softmax_forward(const Tensor& x, int axis, bool log);
Tensor softmax_backward(const Tensor& grad_y, const Tensor& y, int axis, bool log);

// Row helpers shared with the loss kernels: over n contiguous values,
// the maximum, and log(sum(exp(x - max))) + max.
template <class T>
T row_max(const T* x, int64_t n);
template <class T>
T row_logsumexp(const T* x, int64_t n);

}  // namespace strata::kernels::cpu
