// AdaptiveMaxPool1d/2d/3d and AdaptiveAvgPool1d/2d/3d (TensorLayer's AdaptiveMax/MeanPool,
// PyTorch's): pool a channels-last input [N, spatial..., C] to a given spatial size. Output
// index i of an axis of input size n and output size m pools [floor(i*n/m), ceil((i+1)*n/m)),
// PyTorch's rule (bins may overlap when m does not divide n; output larger than input repeats).
#pragma once
#include "strata/nn/layer.hpp"
#include "strata/ops/padding.hpp"

namespace strata::nn {

enum class AdaptiveReduce { max, avg };

// The functional form: x has rank output_size.size() + 2.
Tensor adaptive_pool(const Tensor& x, const SpatialSizes& output_size, AdaptiveReduce reduce);

class AdaptivePool : public Layer {
 public:
  STRATA_LAYER_MOVABLE(AdaptivePool)
  void get_config(nlohmann::json& config) const override;
  // output_size: one value for every spatial axis, or one per axis.
  AdaptivePool(std::string kind, int rank, AdaptiveReduce reduce, SpatialSizes output_size, std::string name);

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  int rank_;
  AdaptiveReduce reduce_;
  SpatialSizes output_size_;
};

#define STRATA_ADAPTIVE_POOL(Class, kind, rank, reduce)                                         \
  struct Class : AdaptivePool {                                                                 \
    STRATA_LAYER_MOVABLE(Class)                                                                 \
    explicit Class(SpatialSizes output_size, std::string name = "")                             \
        : AdaptivePool(kind, rank, AdaptiveReduce::reduce, std::move(output_size), std::move(name)) {} \
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
