// The convolution kernel families on channels-last tensors: forward, backward data and
// backward weights. Weights are [k..., C / groups, O]; inputs may have any strides.
#pragma once
#include <utility>

#include "strata/dispatch/stub.hpp"
#include "strata/dispatch/window.hpp"

namespace strata::dispatch {

// y[N, out..., O] = conv(x[N, in..., C], w) + b, then relu if g.relu; `b` may be undefined.
extern Stub<Tensor(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g)> conv_forward;
// dL/dx[N, in..., C] from dy[N, out..., O]: the transposed convolution of dy with w.
extern Stub<Tensor(const Tensor& dy, const Tensor& w, const ConvGeometry& g)> conv_backward_data;
// (dL/dw [k..., C / groups, O], dL/db [O] or undefined unless `with_bias`) from x and dy.
extern Stub<std::pair<Tensor, Tensor>(const Tensor& x, const Tensor& dy, const ConvGeometry& g, bool with_bias)>
    conv_backward_weights;

}  // namespace strata::dispatch
