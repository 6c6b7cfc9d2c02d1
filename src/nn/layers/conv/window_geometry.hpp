// The geometry of a sliding window along one spatial axis, by conv2d's padding rules
// (ops/padding.hpp), for the layers composed of slices and samples (fold, deformable conv).
#pragma once
#include "strata/ops/conv.hpp"

namespace strata::nn::detail {

struct AxisWindow {
  int64_t kernel, stride, dilation, before, after, out;
};

// Axis `axis` (0 = height, 1 = width) of a 2-D window over an input of `in` elements; errors name `op`.
AxisWindow axis_window(int64_t in, int axis, const SpatialSizes& kernel, const ConvOptions& options, const char* op);

}  // namespace strata::nn::detail
