// Views and shape changes. Views share storage with their input (no copy) where strides allow;
// reshape copies only when it must. All are differentiable.
#pragma once
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata {

// One size may be -1 (inferred). reshape copies when x's strides cannot express the new shape.
Tensor reshape(const Tensor& x, const Shape& shape);
// Like reshape but never copies: an error when the strides do not allow a view.
Tensor view(const Tensor& x, const Shape& shape);
Tensor flatten(const Tensor& x, int64_t start_axis = 0, int64_t end_axis = -1);
Tensor permute(const Tensor& x, const Shape& order);
Tensor transpose(const Tensor& x, int64_t a, int64_t b);
Tensor squeeze(const Tensor& x, int64_t axis);  // drops a size-1 axis
Tensor squeeze(const Tensor& x);                // drops every size-1 axis
Tensor unsqueeze(const Tensor& x, int64_t axis);
// Elements start, start+step, ... below end along axis (negative bounds count from the end).
Tensor slice(const Tensor& x, int64_t axis, int64_t start, int64_t end, int64_t step = 1);
Tensor narrow(const Tensor& x, int64_t axis, int64_t start, int64_t length);
Tensor select(const Tensor& x, int64_t axis, int64_t index);  // removes the axis
// Broadcasts size-1 axes (and new leading ones) to `shape` without copying; -1 keeps a size.
Tensor expand(const Tensor& x, const Shape& shape);
Tensor broadcast_to(const Tensor& x, const Shape& shape);
Tensor contiguous(const Tensor& x);  // x itself when already contiguous
Tensor clone(const Tensor& x);       // always a fresh copy

}  // namespace strata
