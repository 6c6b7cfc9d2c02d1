// 2-D pooling layers on NHWC inputs. Stride defaults to the window; padding to SAME
// (TensorLayer's MaxPool2d defaults).
#pragma once
#include "strata/nn/layer.hpp"
#include "strata/ops/pool.hpp"

namespace strata::nn {

class MaxPool2d : public Layer {
 public:
  explicit MaxPool2d(SpatialSizes filter_size = {2, 2}, PoolOptions options = {.padding = Padding::same()},
                     std::string name = "")
      : Layer("maxpool2d", std::move(name)), filter_size_(std::move(filter_size)), options_(std::move(options)) {}

 protected:
  Tensor forward(const Tensor& x) override { return max_pool2d(x, filter_size_, options_); }

 private:
  SpatialSizes filter_size_;
  PoolOptions options_;
};

class MeanPool2d : public Layer {
 public:
  explicit MeanPool2d(SpatialSizes filter_size = {2, 2}, PoolOptions options = {.padding = Padding::same()},
                      std::string name = "")
      : Layer("meanpool2d", std::move(name)), filter_size_(std::move(filter_size)), options_(std::move(options)) {}

 protected:
  Tensor forward(const Tensor& x) override { return avg_pool2d(x, filter_size_, options_); }

 private:
  SpatialSizes filter_size_;
  PoolOptions options_;
};

}  // namespace strata::nn
