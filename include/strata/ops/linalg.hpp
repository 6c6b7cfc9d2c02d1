// Matrix products on oneDNN (float32) with a plain fallback for float64.
#pragma once
#include "strata/core/tensor.hpp"

namespace strata {

// NumPy matmul: 1-D operands are vectors; leading (batch) axes broadcast.
Tensor matmul(const Tensor& a, const Tensor& b);
// x[..., in] · w[in, out] + b[out] (TensorLayer's Dense layout); b may be undefined.
Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b = Tensor());
Tensor outer(const Tensor& a, const Tensor& b);
// Swaps the last two axes (a view).
Tensor mT(const Tensor& x);

}  // namespace strata
