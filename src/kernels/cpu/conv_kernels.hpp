// Convolution kernels on raw channels-last tensors (no autograd): forward, backward data and
// backward weights. float32 runs on oneDNN primitives (cached by geometry); float64 on the
// direct loops of conv_reference.hpp. Weights are [k..., C / groups, O]; any strides accepted.
#pragma once
#include <utility>

#include "kernels/cpu/spatial_window.hpp"
#include "strata/core/tensor.hpp"

namespace strata::kernels::cpu {

// y[N, out..., O] = conv(x[N, in..., C], w) + b, then relu if g.relu; `b` may be undefined.
Tensor conv_forward(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g);
// dL/dx[N, in..., C] from dy[N, out..., O]: the transposed convolution of dy with w.
Tensor conv_backward_data(const Tensor& dy, const Tensor& w, const ConvGeometry& g);
// (dL/dw [k..., C / groups, O], dL/db [O] or undefined unless `with_bias`) from x and dy.
std::pair<Tensor, Tensor> conv_backward_weights(const Tensor& x, const Tensor& dy, const ConvGeometry& g,
                                                bool with_bias);

}  // namespace strata::kernels::cpu
