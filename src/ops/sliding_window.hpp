// Shape rules shared by the convolution and pooling ops: reading per-axis options, checking
// channels-last inputs, and resolving Padding into pads and output sizes (TensorFlow's rules).
#pragma once
#include <string>

#include "strata/core/tensor.hpp"
#include "strata/dispatch/window.hpp"
#include "strata/ops/padding.hpp"

namespace strata::ops {

using dispatch::Window;

// `values` (one for every axis, or one per axis) right-aligned into a Window's 3 slots, the
// unused leading slots `fill`. Each value must be >= `min`.
Window::Axes window_axes(const SpatialSizes& values, int nsp, int64_t fill, int64_t min, const char* op,
                         const char* what);

// Checks x is [N, spatial (nsp axes)..., C] and floating; sets w.nsp, w.batch and w.in.
void read_input(Window& w, const Tensor& x, int nsp, const char* op);

// With w.in, kernel, stride and dilation set: the pads and w.out. `shapes` goes in errors.
void resolve_padding(Window& w, const Padding& padding, const char* op, const std::string& shapes);

// For a transposed convolution, whose input is the window's *output*: with w.out, kernel, stride
// and dilation set, the pads and w.in (the transposed convolution's output size).
void resolve_transposed_padding(Window& w, const Padding& padding, const char* op, const std::string& shapes);

}  // namespace strata::ops
