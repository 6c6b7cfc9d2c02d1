// The CUDA backend's convolution families, each with its stub's signature. STRATA_CUDA_CONV_STUBS
// lists them (families.hpp registers them).
#pragma once
#include "kernels/cuda/portable.hpp"
#include "strata/dispatch/conv.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

Tensor conv_forward(const Tensor& x, const Tensor& w, const Tensor& b, const dispatch::ConvGeometry& g);
Tensor conv_backward_data(const Tensor& dy, const Tensor& w, const dispatch::ConvGeometry& g);
std::pair<Tensor, Tensor> conv_backward_weights(const Tensor& x, const Tensor& dy, const dispatch::ConvGeometry& g,
                                                bool with_bias);
// dL/db [channels] of a channels-last dy: a sum over every other axis (the reduction family's
// two-pass sum).
Tensor bias_gradient(const Tensor& dy, int64_t channels);

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda

#define STRATA_CUDA_CONV_STUBS(X) X(conv_forward) X(conv_backward_data) X(conv_backward_weights)
