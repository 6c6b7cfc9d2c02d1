// Bilinear sampling of NHWC images at fractional pixel positions: what deformable convolution
// and spatial transformers read their inputs with.
#pragma once
#include "strata/core/tensor.hpp"

namespace strata::nn {

// x [N, H, W, C] sampled at rows ys and columns xs (both [N, M], floating; pixel centres at
// integers) -> [N, M, C]. Each sample mixes its four neighbouring pixels; neighbours outside
// the image read zeros (torchvision's deform_conv2d, grid_sample's padding_mode="zeros").
// Differentiable in x and in the positions.
Tensor bilinear_sample(const Tensor& x, const Tensor& ys, const Tensor& xs);

}  // namespace strata::nn
