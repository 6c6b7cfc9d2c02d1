// Convolution CPU kernels (strata/dispatch/conv.hpp documents them): float32 runs on oneDNN
// primitives (cached by geometry); float64 on the direct loops of conv_reference.hpp.
#pragma once
#include <utility>

#include "kernels/cpu/spatial_window.hpp"
#include "strata/dispatch/conv.hpp"

namespace strata::kernels::cpu {

Tensor conv_forward(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g);
Tensor conv_backward_data(const Tensor& dy, const Tensor& w, const ConvGeometry& g);
std::pair<Tensor, Tensor> conv_backward_weights(const Tensor& x, const Tensor& dy, const ConvGeometry& g,
                                                bool with_bias);

}  // namespace strata::kernels::cpu
