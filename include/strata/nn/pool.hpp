// 2-D pooling layers on NHWC inputs. Stride defaults to the window; padding to SAME
// (TensorLayer's MaxPool2d defaults).
#pragma once
#include "strata/nn/layer.hpp"
#include "strata/ops/pool.hpp"

namespace strata::nn {

// A pooling op over a window, as a layer; MaxPool2d and MeanPool2d only pick the op.
class Pool2d : public Layer {
 public:
  using PoolFn = Tensor (*)(const Tensor&, const SpatialSizes&, const PoolOptions&);
  Pool2d(std::string kind, PoolFn pool, SpatialSizes filter_size, PoolOptions options, std::string name)
      : Layer(std::move(kind), std::move(name)), pool_(pool), filter_size_(std::move(filter_size)),
        options_(std::move(options)) {}
  void get_config(nlohmann::json& config) const override;  // pool_variants.cpp

 protected:
  Tensor forward(const Tensor& x) override { return pool_(x, filter_size_, options_); }

 private:
  PoolFn pool_;
  SpatialSizes filter_size_;
  PoolOptions options_;
};

class MaxPool2d : public Pool2d {
 public:
  STRATA_LAYER_MOVABLE(MaxPool2d)
  explicit MaxPool2d(SpatialSizes filter_size = {2, 2}, PoolOptions options = {.padding = Padding::same()},
                     std::string name = "")
      : Pool2d("maxpool2d", max_pool2d, std::move(filter_size), std::move(options), std::move(name)) {}
};

class MeanPool2d : public Pool2d {
 public:
  STRATA_LAYER_MOVABLE(MeanPool2d)
  explicit MeanPool2d(SpatialSizes filter_size = {2, 2}, PoolOptions options = {.padding = Padding::same()},
                      std::string name = "")
      : Pool2d("meanpool2d", avg_pool2d, std::move(filter_size), std::move(options), std::move(name)) {}
};

}  // namespace strata::nn
