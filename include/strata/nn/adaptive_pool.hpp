// AdaptiveMaxPool1d/2d/3d and AdaptiveAvgPool1d/2d/3d (TensorLayer's AdaptiveMax/MeanPool,
// PyTorch's): pool a channels-last input [N, spatial..., C] to a given spatial size. Output
// index i of an axis of input size n and output size m pools [floor(i*n/m), ceil((i+1)*n/m)),
// PyTorch's rule (bins may overlap when m does not divide n; output larger than input repeats).
#pragma once
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"
#include "strata/ops/padding.hpp"

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

#define STRATA_ADAPTIVE_POOL(Class, kind, rank, reduce)                                                  \
  struct Class : AdaptivePool {                                                                          \
    STRATA_LAYER_MOVABLE(Class)                                                                          \
    explicit Class(Options options, std::string name = "")                                               \
        : AdaptivePool(kind, rank, AdaptiveReduce::reduce, std::move(options), std::move(name)) {}       \
    explicit Class(SpatialSizes output_size, std::string name = "")                                      \
        : Class(Options{.output_size = std::move(output_size)}, std::move(name)) {}                      \
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
