// Pooling layers: max and mean pooling in 1, 2 and 3 dimensions, global and adaptive pooling,
// corner pooling.
// One header per layer family (docs/architecture.md, "nn"); each section below keeps its own notes.
#pragma once
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"
#include "strata/ops/padding.hpp"
#include "strata/ops/pool.hpp"

// 2-D pooling layers on NHWC inputs. Stride defaults to the window; padding to SAME
// (TensorLayer's MaxPool2d defaults).
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

// Pooling layers beside MaxPool2d / MeanPool2d: 1-D and 3-D windows ([N, W, C], [N, D, H, W, C];
// stride defaults to the window, padding to SAME) and global pools over every spatial axis
// ([N, spatial..., C] -> [N, C]). Each checks its input's rank, naming the layer.
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

// AdaptiveMaxPool1d/2d/3d and AdaptiveAvgPool1d/2d/3d (TensorLayer's AdaptiveMax/MeanPool,
// PyTorch's): pool a channels-last input [N, spatial..., C] to a given spatial size. Output
// index i of an axis of input size n and output size m pools [floor(i*n/m), ceil((i+1)*n/m)),
// PyTorch's rule (bins may overlap when m does not divide n; output larger than input repeats).
namespace strata::nn {

enum class AdaptiveReduce { max, avg };

// The functional form: x has rank output_size.size() + 2.
Tensor adaptive_pool(const Tensor& x, const SpatialSizes& output_size, AdaptiveReduce reduce);

// The options of every adaptive pool (AdaptiveMaxPool1d/2d/3d, AdaptiveAvgPool1d/2d/3d).
#define STRATA_ADAPTIVE_POOL_OPTIONS(X) \
  X(SpatialSizes, output_size, {}, at_least(1), "output size per spatial axis, or one value for every axis")
STRATA_OPTIONS(AdaptivePoolOptions, STRATA_ADAPTIVE_POOL_OPTIONS);

class AdaptivePool : public Layer {
 public:
  STRATA_LAYER_MOVABLE(AdaptivePool)
  using Options = AdaptivePoolOptions;
  // output_size: one value for every spatial axis, or one per axis (options() holds one per axis).
  AdaptivePool(std::string kind, int rank, AdaptiveReduce reduce, Options options, std::string name);
  AdaptivePool(std::string kind, int rank, AdaptiveReduce reduce, SpatialSizes output_size, std::string name)
      : AdaptivePool(std::move(kind), rank, reduce, Options{.output_size = std::move(output_size)}, std::move(name)) {}
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  int rank_;
  AdaptiveReduce reduce_;
  Options options_;
};

#define STRATA_ADAPTIVE_POOL(Class, kind, rank, reduce)                                            \
  struct Class : AdaptivePool {                                                                    \
    STRATA_LAYER_MOVABLE(Class)                                                                    \
    explicit Class(Options options, std::string name = "")                                         \
        : AdaptivePool(kind, rank, AdaptiveReduce::reduce, std::move(options), std::move(name)) {} \
    explicit Class(SpatialSizes output_size, std::string name = "")                                \
        : Class(Options{.output_size = std::move(output_size)}, std::move(name)) {}                \
  };
STRATA_ADAPTIVE_POOL(AdaptiveMaxPool1d, "adaptivemaxpool1d", 1, max)
STRATA_ADAPTIVE_POOL(AdaptiveMaxPool2d, "adaptivemaxpool2d", 2, max)
STRATA_ADAPTIVE_POOL(AdaptiveMaxPool3d, "adaptivemaxpool3d", 3, max)
STRATA_ADAPTIVE_POOL(AdaptiveAvgPool1d, "adaptiveavgpool1d", 1, avg)
STRATA_ADAPTIVE_POOL(AdaptiveAvgPool2d, "adaptiveavgpool2d", 2, avg)
STRATA_ADAPTIVE_POOL(AdaptiveAvgPool3d, "adaptiveavgpool3d", 3, avg)
#undef STRATA_ADAPTIVE_POOL

// TensorLayer's names.
using AdaptiveMeanPool1d = AdaptiveAvgPool1d;
using AdaptiveMeanPool2d = AdaptiveAvgPool2d;
using AdaptiveMeanPool3d = AdaptiveAvgPool3d;

}  // namespace strata::nn

// CornerNet's corner pooling (TensorLayerX's CornerPool2d) on channels-last inputs.
namespace strata::nn {

// [N, H, W, C], the maximum over the column towards one edge plus the maximum over the row
// towards another (both including the position). TopLeft looks down and right; BottomRight up
// and left; TopRight down and left; BottomLeft up and right.
enum class Corner { top_left, top_right, bottom_left, bottom_right };
Tensor corner_pool2d(const Tensor& x, Corner corner);

#define STRATA_CORNER_POOL2D_OPTIONS(X) X(Corner, mode, Corner::top_left, any(), "the corner pooled towards")
STRATA_OPTIONS(CornerPool2dOptions, STRATA_CORNER_POOL2D_OPTIONS);

class CornerPool2d : public Layer {
 public:
  STRATA_LAYER_MOVABLE(CornerPool2d)
  using Options = CornerPool2dOptions;
  explicit CornerPool2d(Options options, std::string name = "");
  explicit CornerPool2d(Corner corner = Corner::top_left, std::string name = "");
  // TensorLayerX's spelling: "TopLeft", "TopRight", "BottomLeft", "BottomRight".
  explicit CornerPool2d(const std::string& mode, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn
