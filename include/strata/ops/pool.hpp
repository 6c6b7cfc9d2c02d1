// Max and average pooling over channels-last tensors ([N, W, C], [N, H, W, C], [N, D, H, W, C]),
// as TensorFlow does them: padded positions never win a max, and an average divides by the
// number of real (unpadded) elements in its window. Differentiable; float32 runs on oneDNN.
#pragma once
#include "strata/core/tensor.hpp"
#include "strata/ops/padding.hpp"

namespace strata {

// e.g. max_pool2d(x, {3}, {.stride = {2}, .padding = Padding::same()}).
struct PoolOptions {
  SpatialSizes stride = {};  // empty: the kernel size (non-overlapping windows)
  Padding padding = Padding::valid();  // explicit padding must be smaller than the kernel
};

Tensor max_pool1d(const Tensor& x, const SpatialSizes& kernel, const PoolOptions& options = {});
Tensor max_pool2d(const Tensor& x, const SpatialSizes& kernel, const PoolOptions& options = {});
Tensor max_pool3d(const Tensor& x, const SpatialSizes& kernel, const PoolOptions& options = {});
Tensor avg_pool1d(const Tensor& x, const SpatialSizes& kernel, const PoolOptions& options = {});
Tensor avg_pool2d(const Tensor& x, const SpatialSizes& kernel, const PoolOptions& options = {});
Tensor avg_pool3d(const Tensor& x, const SpatialSizes& kernel, const PoolOptions& options = {});

// Over every spatial axis: [N, spatial..., C] -> [N, C] (TensorLayer's GlobalMaxPool2d, ...).
Tensor global_max_pool1d(const Tensor& x);
Tensor global_max_pool2d(const Tensor& x);
Tensor global_max_pool3d(const Tensor& x);
Tensor global_avg_pool1d(const Tensor& x);
Tensor global_avg_pool2d(const Tensor& x);
Tensor global_avg_pool3d(const Tensor& x);

}  // namespace strata
