// The dropout mask as a pure function of (seed, element index), so the forward and backward
// passes compute the same mask without storing it, in parallel and independent of threads.
#pragma once
#include <cstdint>

#include "strata/core/tensor.hpp"

namespace strata::kernels::cpu {

// x * keep_i / (1 - p), keep_i true with probability 1 - p, from a hash of (seed, i) where i
// is the element's row-major position. Applied to the output gradient it is the backward.
Tensor dropout_apply(const Tensor& x, double p, uint64_t seed);

}  // namespace strata::kernels::cpu
