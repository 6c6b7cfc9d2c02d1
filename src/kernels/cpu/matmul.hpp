// Batched matrix product on the CPU: oneDNN for float32 (a vector times a row-major matrix:
// gemv.hpp), plain loops for float64.
#pragma once
#include "strata/core/tensor.hpp"

namespace strata::kernels::cpu {

// a [Ba, M, K] · b [Bb, K, N] (+ bias [N]) -> [max(Ba, Bb), M, N]; Ba and Bb are equal or 1.
// a and b may be strided views (e.g. transposed) as long as each matrix has a unit stride on
// one of its two axes; anything else is copied first.
Tensor matmul3d(const Tensor& a, const Tensor& b, const Tensor& bias = Tensor());

}  // namespace strata::kernels::cpu
