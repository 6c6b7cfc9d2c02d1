// Full-reference image quality, as super-resolution papers report it: PSNR and SSIM between an
// image and its reference, and the BT.601 luma (Y) channel they are usually computed on.
#pragma once
#include "strata/core/tensor.hpp"

namespace strata::data {

// 10 log10(data_range^2 / MSE) over every element of two tensors of the same shape (any dtype,
// compared as double; scikit-image's peak_signal_noise_ratio). Infinite for identical inputs.
double psnr(const Tensor& image, const Tensor& reference, double data_range);

// Mean SSIM (Wang et al. 2004) of two HWC images of the same shape, both sides at least 11:
// Gaussian-weighted statistics (11x11, sigma 1.5, population covariances), K1 0.01, K2 0.03,
// averaged over the positions whose window lies inside the image, then over the channels;
// the same as scikit-image's structural_similarity(gaussian_weights=True, sigma=1.5,
// use_sample_covariance=False, data_range=..., channel_axis=-1).
double ssim(const Tensor& image, const Tensor& reference, double data_range);

// The luma of RGB images (HWC or NHWC, values 0..255, any dtype) as Matlab's rgb2ycbcr and
// scikit-image's rgb2ycbcr give it: Y = 16 + (65.481 R + 128.553 G + 24.966 B) / 255, in
// [16, 235], float64, one channel.
Tensor rgb_to_luma(const Tensor& rgb);

}  // namespace strata::data
