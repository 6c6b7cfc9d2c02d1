// Inverted dropout: in training each element is zeroed with probability p and the survivors
// are scaled by 1 / (1 - p), so evaluation is the identity.
#pragma once
#include "strata/core/tensor.hpp"

namespace strata {

class Generator;

// p in [0, 1). The mask is drawn from `gen` (the default generator when null): one 64-bit
// seed per call, expanded by a counter-based hash, so the backward pass regenerates the same
// mask instead of storing it, and a seeded generator gives the same mask on every thread count.
Tensor dropout(const Tensor& x, double p, bool training, Generator* gen = nullptr);

}  // namespace strata
