// The convolution families on cuDNN (cudnn_conv.cpp): conv.cu's entry points call these when
// cudnn() returns a library and cudnn_takes the case.
#pragma once
#include "kernels/cuda/cudnn_api.hpp"
#include "strata/dispatch/conv.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

// Whether the cuDNN path runs this case: float32, symmetric padding, sizes that fit an int.
bool cudnn_takes(const Tensor& x, const dispatch::ConvGeometry& g);
Tensor cudnn_conv_forward(const CudnnApi& api, const Tensor& x, const Tensor& w, const Tensor& b,
                          const dispatch::ConvGeometry& g);
Tensor cudnn_conv_backward_data(const CudnnApi& api, const Tensor& dy, const Tensor& w,
                                const dispatch::ConvGeometry& g);
// dL/dw in Strata's layout, [k..., C / groups, O].
Tensor cudnn_conv_backward_weights(const CudnnApi& api, const Tensor& x, const Tensor& dy,
                                   const dispatch::ConvGeometry& g);

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
