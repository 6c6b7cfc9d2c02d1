// The 2x2, stride-2 max pool of an even-sized channels-last float32 image without padding — the
// pool of nearly every CNN — as plain loops. oneDNN's NHWC pooling ran at ~10 GB/s here (1.6 ms
// forward and 1.8 ms backward for the Fashion-MNIST CNN's first pool at batch 128, a tenth of
// its training step); these loops stream each input once and write each gradient once.
#pragma once
#include <cstdint>

#include "kernels/cpu/pool_kernels.hpp"

namespace strata::kernels::cpu {

// True when g is a 2x2 stride-2 max pool that tiles its input exactly (even sizes, no padding).
bool is_tiling_max_pool_2x2(const PoolGeometry& g);

// y[N, H/2, W/2, C] from x[N, H, W, C], contiguous; `winner` (may be null) gets, per output,
// which of the four inputs won (0..3, row-major; the first of equal maxima; a NaN wins only
// in the first position, as comparisons with it are false).
void max_pool_2x2_forward(const float* x, float* y, uint8_t* winner, const PoolGeometry& g);
// dx from dy and the forward's winners: each input gets dy of its output if it won, else 0.
void max_pool_2x2_backward(const float* dy, const uint8_t* winner, float* dx, const PoolGeometry& g);

}  // namespace strata::kernels::cpu
