// A vector times a row-major matrix, float32: the batch-1 Dense (y = x W + b).
#pragma once
#include <cstdint>

namespace strata::kernels::cpu {

// y[N] = x[K] . w[K, N] (+ bias[N], when not null); row k of w starts at w + k * ldw.
void gemv_f32(const float* x, const float* w, int64_t ldw, const float* bias, float* y, int64_t K, int64_t N);

}  // namespace strata::kernels::cpu
