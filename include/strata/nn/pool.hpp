// 2-D pooling layers on NHWC inputs. Stride defaults to the window; padding to SAME
// (TensorLayer's MaxPool2d defaults).
#pragma once
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"
#include "strata/ops/pool.hpp"

namespace strata::nn {

// The options of every windowed pool (MaxPool1d/2d/3d, MeanPool1d/2d/3d).
#define STRATA_WINDOW_POOL_OPTIONS(X)                                                    \
  X(SpatialSizes, filter_size, {}, at_least(1),                                          \
    "window per spatial axis (one value: every axis); empty: 2 along each spatial axis") \
  X(PoolOptions, options, {.padding = Padding::same()}, any(),                           \
    "stride (empty: the window) and padding (\"same\", \"valid\" or {before, after})")
STRATA_OPTIONS(WindowPoolOptions, STRATA_WINDOW_POOL_OPTIONS);

// A pooling op over a window, as a layer; MaxPool2d and MeanPool2d only pick the op.
class Pool2d : public Layer {
 public:
  using Options = WindowPoolOptions;
  using PoolFn = Tensor (*)(const Tensor&, const SpatialSizes&, const PoolOptions&);
  // An empty filter_size is 2 along each of the `rank` spatial axes.
  Pool2d(std::string kind, int rank, PoolFn pool, Options options, std::string name);  // pool_variants.cpp
  Pool2d(std::string kind, PoolFn pool, SpatialSizes filter_size, PoolOptions options, std::string name)
      : Pool2d(std::move(kind), 2, pool, Options{.filter_size = std::move(filter_size), .options = std::move(options)},
               std::move(name)) {}
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override { return pool_(x, options_.filter_size, options_.options); }

 private:
  PoolFn pool_;
  Options options_;
};

class MaxPool2d : public Pool2d {
 public:
  STRATA_LAYER_MOVABLE(MaxPool2d)
  explicit MaxPool2d(Options options, std::string name = "")
      : Pool2d("maxpool2d", 2, max_pool2d, std::move(options), std::move(name)) {}
  explicit MaxPool2d(SpatialSizes filter_size = {2, 2}, PoolOptions options = {.padding = Padding::same()},
                     std::string name = "")
      : MaxPool2d(Options{.filter_size = std::move(filter_size), .options = std::move(options)}, std::move(name)) {}
};

class MeanPool2d : public Pool2d {
 public:
  STRATA_LAYER_MOVABLE(MeanPool2d)
  explicit MeanPool2d(Options options, std::string name = "")
      : Pool2d("meanpool2d", 2, avg_pool2d, std::move(options), std::move(name)) {}
  explicit MeanPool2d(SpatialSizes filter_size = {2, 2}, PoolOptions options = {.padding = Padding::same()},
                      std::string name = "")
      : MeanPool2d(Options{.filter_size = std::move(filter_size), .options = std::move(options)}, std::move(name)) {}
};

}  // namespace strata::nn
