// Pooling layers beside MaxPool2d / MeanPool2d: 1-D and 3-D windows ([N, W, C], [N, D, H, W, C];
// stride defaults to the window, padding to SAME) and global pools over every spatial axis
// ([N, spatial..., C] -> [N, C]). Each checks its input's rank, naming the layer.
#pragma once
#include "strata/nn/pool.hpp"

namespace strata::nn {

// Pool2d's forward works for any rank; this adds the rank check.
class PoolNd : public Pool2d {
 public:
  STRATA_LAYER_MOVABLE(PoolNd)
  PoolNd(std::string kind, int rank, PoolFn pool, Options options, std::string name)
      : Pool2d(std::move(kind), rank, pool, std::move(options), std::move(name)), rank_(rank) {}
  PoolNd(std::string kind, int rank, PoolFn pool, SpatialSizes filter_size, PoolOptions options, std::string name)
      : PoolNd(std::move(kind), rank, pool,
               Options{.filter_size = std::move(filter_size), .options = std::move(options)}, std::move(name)) {}

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  int rank_;
};

class MaxPool1d : public PoolNd {
 public:
  STRATA_LAYER_MOVABLE(MaxPool1d)
  explicit MaxPool1d(Options options, std::string name = "")
      : PoolNd("maxpool1d", 1, max_pool1d, std::move(options), std::move(name)) {}
  explicit MaxPool1d(SpatialSizes filter_size = {2}, PoolOptions options = {.padding = Padding::same()},
                     std::string name = "")
      : MaxPool1d(Options{.filter_size = std::move(filter_size), .options = std::move(options)}, std::move(name)) {}
};
class MeanPool1d : public PoolNd {
 public:
  STRATA_LAYER_MOVABLE(MeanPool1d)
  explicit MeanPool1d(Options options, std::string name = "")
      : PoolNd("meanpool1d", 1, avg_pool1d, std::move(options), std::move(name)) {}
  explicit MeanPool1d(SpatialSizes filter_size = {2}, PoolOptions options = {.padding = Padding::same()},
                      std::string name = "")
      : MeanPool1d(Options{.filter_size = std::move(filter_size), .options = std::move(options)}, std::move(name)) {}
};
class MaxPool3d : public PoolNd {
 public:
  STRATA_LAYER_MOVABLE(MaxPool3d)
  explicit MaxPool3d(Options options, std::string name = "")
      : PoolNd("maxpool3d", 3, max_pool3d, std::move(options), std::move(name)) {}
  explicit MaxPool3d(SpatialSizes filter_size = {2, 2, 2}, PoolOptions options = {.padding = Padding::same()},
                     std::string name = "")
      : MaxPool3d(Options{.filter_size = std::move(filter_size), .options = std::move(options)}, std::move(name)) {}
};
class MeanPool3d : public PoolNd {
 public:
  STRATA_LAYER_MOVABLE(MeanPool3d)
  explicit MeanPool3d(Options options, std::string name = "")
      : PoolNd("meanpool3d", 3, avg_pool3d, std::move(options), std::move(name)) {}
  explicit MeanPool3d(SpatialSizes filter_size = {2, 2, 2}, PoolOptions options = {.padding = Padding::same()},
                      std::string name = "")
      : MeanPool3d(Options{.filter_size = std::move(filter_size), .options = std::move(options)}, std::move(name)) {}
};

// The global pools have no options (their config is {}).
#define STRATA_GLOBAL_POOL_OPTIONS(X)
STRATA_OPTIONS(GlobalPoolOptions, STRATA_GLOBAL_POOL_OPTIONS);

// A global pool over the `rank` spatial axes.
class GlobalPool : public Layer {
 public:
  STRATA_LAYER_MOVABLE(GlobalPool)
  using Options = GlobalPoolOptions;
  using GlobalFn = Tensor (*)(const Tensor&);
  GlobalPool(std::string kind, int rank, GlobalFn pool, Options options, std::string name);  // pool_variants.cpp
  GlobalPool(std::string kind, int rank, GlobalFn pool, std::string name)
      : GlobalPool(std::move(kind), rank, pool, Options{}, std::move(name)) {}
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  int rank_;
  GlobalFn pool_;
  Options options_;
};

class GlobalMaxPool1d : public GlobalPool {
 public:
  STRATA_LAYER_MOVABLE(GlobalMaxPool1d)
  explicit GlobalMaxPool1d(Options options, std::string name = "")
      : GlobalPool("globalmaxpool1d", 1, global_max_pool1d, std::move(options), std::move(name)) {}
  explicit GlobalMaxPool1d(std::string name = "") : GlobalMaxPool1d(Options{}, std::move(name)) {}
};
class GlobalMaxPool2d : public GlobalPool {
 public:
  STRATA_LAYER_MOVABLE(GlobalMaxPool2d)
  explicit GlobalMaxPool2d(Options options, std::string name = "")
      : GlobalPool("globalmaxpool2d", 2, global_max_pool2d, std::move(options), std::move(name)) {}
  explicit GlobalMaxPool2d(std::string name = "") : GlobalMaxPool2d(Options{}, std::move(name)) {}
};
class GlobalMaxPool3d : public GlobalPool {
 public:
  STRATA_LAYER_MOVABLE(GlobalMaxPool3d)
  explicit GlobalMaxPool3d(Options options, std::string name = "")
      : GlobalPool("globalmaxpool3d", 3, global_max_pool3d, std::move(options), std::move(name)) {}
  explicit GlobalMaxPool3d(std::string name = "") : GlobalMaxPool3d(Options{}, std::move(name)) {}
};
class GlobalMeanPool1d : public GlobalPool {
 public:
  STRATA_LAYER_MOVABLE(GlobalMeanPool1d)
  explicit GlobalMeanPool1d(Options options, std::string name = "")
      : GlobalPool("globalmeanpool1d", 1, global_avg_pool1d, std::move(options), std::move(name)) {}
  explicit GlobalMeanPool1d(std::string name = "") : GlobalMeanPool1d(Options{}, std::move(name)) {}
};
class GlobalMeanPool2d : public GlobalPool {
 public:
  STRATA_LAYER_MOVABLE(GlobalMeanPool2d)
  explicit GlobalMeanPool2d(Options options, std::string name = "")
      : GlobalPool("globalmeanpool2d", 2, global_avg_pool2d, std::move(options), std::move(name)) {}
  explicit GlobalMeanPool2d(std::string name = "") : GlobalMeanPool2d(Options{}, std::move(name)) {}
};
class GlobalMeanPool3d : public GlobalPool {
 public:
  STRATA_LAYER_MOVABLE(GlobalMeanPool3d)
  explicit GlobalMeanPool3d(Options options, std::string name = "")
      : GlobalPool("globalmeanpool3d", 3, global_avg_pool3d, std::move(options), std::move(name)) {}
  explicit GlobalMeanPool3d(std::string name = "") : GlobalMeanPool3d(Options{}, std::move(name)) {}
};

}  // namespace strata::nn
