// Elastic distortion (Simard et al. 2003; TensorLayer's elastic_transform) of one HWC image or
// each image of an NHWC batch (uint8, float32 or float64; the dtype is kept).
#pragma once
#include "strata/core/factory.hpp"
#include "strata/core/tensor.hpp"
#include "strata/vision/image.hpp"

namespace strata::vision {

// Every pixel moves by (dx, dy): two fields of uniform noise in [-1, 1], each smoothed by a
// Gaussian of standard deviation `sigma` pixels (zero outside the image, truncated at 4 sigma,
// as scipy's gaussian_filter with mode "constant") and scaled by `alpha` pixels. Output pixel
// (x, y) shows the input at (x + dx, y + dy), resampled once; outside the input is `fill`.
// alpha = 0 returns the image. Each image of a batch draws its own fields.
Tensor elastic_transform(const Tensor& image, double alpha, double sigma, Generator& gen = default_generator(),
                         Interpolation mode = Interpolation::bilinear, double fill = 0);

}  // namespace strata::vision
