// Batched matrix product on the CPU: oneDNN for float32 (a vector times a row-major matrix:
// gemv.hpp), plain loops for float64.
#pragma once
#include "strata/core/tensor.hpp"

namespace strata::kernels::cpu {

// strata/dispatch/matmul.hpp documents it. Each matrix read in place needs a unit stride on one
// of its two axes; anything else is copied first.
Tensor matmul3d(const Tensor& a, const Tensor& b, const Tensor& bias);

}  // namespace strata::kernels::cpu
