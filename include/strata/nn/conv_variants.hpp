// Convolution layers beside Conv2d (TensorLayer's Conv1d, Conv3d, DeConv2d, DeConv3d) on
// channels-last inputs, input channels inferred. Weights: Conv W [k..., in, n_filter];
// DeConv W [k..., n_filter, in] (TensorFlow's conv_transpose filter); b [n_filter].
// Padding defaults to SAME; DeConv strides to 2 (TensorLayer's defaults).
#pragma once
#include "strata/nn/activation.hpp"
#include "strata/nn/layer.hpp"
#include "strata/ops/conv.hpp"

namespace strata::nn {

// A convolution of `rank` spatial axes, plain or transposed, as a layer; the classes below
// only pick the op and the defaults.
class ConvLayer : public Layer {
 public:
  STRATA_LAYER_MOVABLE(ConvLayer)
  void get_config(nlohmann::json& config) const override;
  using ConvFn = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const ConvOptions&);
  ConvLayer(std::string kind, int rank, bool transposed, ConvFn conv, int64_t n_filter, SpatialSizes filter_size,
            Activation act, ConvOptions options, std::string name, int64_t in_channels, bool use_bias,
            Initializer w_init, Initializer b_init);
  Tensor W, b;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  std::string layout() const;  // "[N, H, W, C]" for rank 2
  int rank_;
  bool transposed_;
  ConvFn conv_;
  int64_t n_filter_, in_channels_;
  SpatialSizes filter_size_;
  Activation act_;
  ConvOptions options_;
  bool use_bias_;
  Initializer w_init_, b_init_;
};

inline ConvOptions same_padding(int64_t stride = 1) {
  return ConvOptions{.stride = {stride}, .padding = Padding::same()};
}

// x [N, W, C]; W [k, in, n_filter].
class Conv1d : public ConvLayer {
 public:
  STRATA_LAYER_MOVABLE(Conv1d)
  Conv1d(int64_t n_filter, SpatialSizes filter_size = {5}, Activation act = {}, ConvOptions options = same_padding(),
         std::string name = "", int64_t in_channels = -1, bool use_bias = true, Initializer w_init = glorot_uniform(),
         Initializer b_init = zeros_init());
};

// x [N, D, H, W, C]; W [kd, kh, kw, in, n_filter].
class Conv3d : public ConvLayer {
 public:
  STRATA_LAYER_MOVABLE(Conv3d)
  Conv3d(int64_t n_filter, SpatialSizes filter_size = {3, 3, 3}, Activation act = {},
         ConvOptions options = same_padding(), std::string name = "", int64_t in_channels = -1, bool use_bias = true,
         Initializer w_init = glorot_uniform(), Initializer b_init = zeros_init());
};

// Transposed 2-D convolution: x [N, H, W, C] -> [N, H * stride, W * stride, n_filter] (SAME);
// W [kh, kw, n_filter, in].
class DeConv2d : public ConvLayer {
 public:
  STRATA_LAYER_MOVABLE(DeConv2d)
  DeConv2d(int64_t n_filter, SpatialSizes filter_size = {3, 3}, Activation act = {},
           ConvOptions options = same_padding(2), std::string name = "", int64_t in_channels = -1, bool use_bias = true,
           Initializer w_init = glorot_uniform(), Initializer b_init = zeros_init());
};

// Transposed 3-D convolution; W [kd, kh, kw, n_filter, in].
class DeConv3d : public ConvLayer {
 public:
  STRATA_LAYER_MOVABLE(DeConv3d)
  DeConv3d(int64_t n_filter, SpatialSizes filter_size = {3, 3, 3}, Activation act = {},
           ConvOptions options = same_padding(2), std::string name = "", int64_t in_channels = -1, bool use_bias = true,
           Initializer w_init = glorot_uniform(), Initializer b_init = zeros_init());
};

}  // namespace strata::nn
