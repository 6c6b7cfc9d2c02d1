// Padding of the spatial axes for sliding-window ops (convolutions, pooling), and the per-axis
// sizes they take: one value applies to every spatial axis, or give one per axis.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace strata {

// Sizes along the spatial axes (stride, dilation, kernel): {v} for every axis or {v0, v1, ...}.
using SpatialSizes = std::vector<int64_t>;

// same():  TensorFlow's SAME: output = ceil(input / stride); padding total
//          max((out - 1) * stride + dilated_kernel - in, 0), the odd unit at the end.
// valid(): no padding: output = (input - dilated_kernel) / stride + 1 (floor).
// explicit_(before, after): that many zeros before and after each spatial axis.
struct Padding {
  enum class Kind { same, valid, explicit_ };
  Kind kind = Kind::valid;
  SpatialSizes before, after;  // explicit_ only

  static Padding same() { return {Kind::same, {}, {}}; }
  static Padding valid() { return {Kind::valid, {}, {}}; }
  static Padding explicit_(SpatialSizes before, SpatialSizes after) {
    return {Kind::explicit_, std::move(before), std::move(after)};
  }
};

}  // namespace strata
