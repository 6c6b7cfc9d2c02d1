// The dropout kernel family: the mask is a pure function of (seed, element index), so forward
// and backward compute the same mask without storing it, on any device and thread count.
#pragma once
#include <cstdint>

#include "strata/dispatch/stub.hpp"

namespace strata::dispatch {

// x * keep_i / (1 - p), keep_i true with probability 1 - p, from a hash of (seed, i) where i
// is the element's row-major position. Applied to the output gradient it is the backward.
extern Stub<Tensor(const Tensor& x, double p, uint64_t seed)> dropout_apply;

}  // namespace strata::dispatch
