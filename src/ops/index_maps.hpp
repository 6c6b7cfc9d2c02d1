// Gathering by per-axis index maps (dispatch::take_axes) and its adjoint, summing back
// (put_add_axes), as differentiable ops: each is the other's backward, so pad, index_select and
// embedding have gradients of every order.
#pragma once
#include "ops/op_common.hpp"
#include "strata/dispatch/index.hpp"

namespace strata::ops {

// The entries of x picked by `maps` into a tensor of `shape`, recorded as `op`.
Tensor take(Op op, const Tensor& x, const Shape& shape, const dispatch::AxisMaps& maps);
// g summed into zeros of `shape` at the entries `maps` picked: the gradient of take, recorded as
// `op`'s backward.
Tensor put_add(Op op, const Tensor& g, const dispatch::AxisMaps& maps, const Shape& shape);

}  // namespace strata::ops
