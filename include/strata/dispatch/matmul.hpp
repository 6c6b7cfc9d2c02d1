// The matrix-product kernel family.
#pragma once
#include "strata/dispatch/stub.hpp"

namespace strata::dispatch {

// a [Ba, M, K] · b [Bb, K, N] (+ bias [N], or undefined) -> [max(Ba, Bb), M, N]; Ba and Bb are
// equal or 1. a and b may be strided views (e.g. transposed).
extern Stub<Tensor(const Tensor& a, const Tensor& b, const Tensor& bias)> matmul3d;

}  // namespace strata::dispatch
