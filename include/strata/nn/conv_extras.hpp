// More convolution layers on channels-last inputs: TensorLayer's DeConv1d and SeparableConv1d,
// and its 1.x forms Conv1dLayer, Conv2dLayer, Conv3dLayer, DeConv2dLayer, DeConv3dLayer, which
// take the whole weight shape instead of n_filter and filter_size.
#pragma once
#include "strata/nn/conv_variants.hpp"

namespace strata::nn {

// Transposed 1-D convolution: x [N, W, C] -> [N, W * stride, n_filter] (SAME); W [k, n_filter, in].
class DeConv1d : public ConvLayer {
 public:
  STRATA_LAYER_MOVABLE(DeConv1d)
  DeConv1d(int64_t n_filter, SpatialSizes filter_size = {3}, Activation act = {},
           ConvOptions options = same_padding(2), std::string name = "", int64_t in_channels = -1, bool use_bias = true,
           Initializer w_init = glorot_uniform(), Initializer b_init = zeros_init());
};

// A depthwise 1-D convolution followed by a pointwise one (Keras's SeparableConv1D, which
// TensorLayer's wraps): depthwise_W [k, C, depth_multiplier], pointwise_W
// [1, C * depth_multiplier, n_filter], b [n_filter]. Padding defaults to VALID, as TensorLayer's.
class SeparableConv1d : public Layer {
 public:
  STRATA_LAYER_MOVABLE(SeparableConv1d)
  void get_config(nlohmann::json& config) const override;
  explicit SeparableConv1d(int64_t n_filter, SpatialSizes filter_size = {3}, Activation act = {},
                           ConvOptions options = {}, int64_t depth_multiplier = 1, std::string name = "",
                           int64_t in_channels = -1, bool use_bias = true,
                           Initializer depthwise_init = glorot_uniform(), Initializer pointwise_init = glorot_uniform(),
                           Initializer b_init = zeros_init());
  Tensor depthwise_W, pointwise_W, b;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  int64_t n_filter_;
  SpatialSizes filter_size_;
  Activation act_;
  ConvOptions options_;
  int64_t depth_multiplier_, in_channels_;
  bool use_bias_;
  Initializer depthwise_init_, pointwise_init_, b_init_;
};

// The functional form: x [N, W, C], w [k, C, M] -> [N, W', C * M], output channel c * M + m.
Tensor depthwise_conv1d(const Tensor& x, const Tensor& w, const Tensor& b = Tensor(), ConvOptions options = {});

// TensorLayer 1.x's explicit-shape convolutions. `shape` is the whole W: [k..., in, out] for a
// convolution, [k..., out, in] for a transposed one (TensorFlow's filter layouts); the input's
// channel count is checked against it. Initializers default to TensorLayer 1.x's
// (truncated normal of stddev 0.02, zero bias). Their saved config is ConvLayer's (n_filter,
// filter_size, in_channels, ...), from which loading puts the shape back together.
class Conv1dLayer : public ConvLayer {
 public:
  STRATA_LAYER_MOVABLE(Conv1dLayer)
  explicit Conv1dLayer(const Shape& shape, Activation act = {}, ConvOptions options = same_padding(),
                       std::string name = "", bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.02),
                       Initializer b_init = zeros_init());
};
class Conv2dLayer : public ConvLayer {
 public:
  STRATA_LAYER_MOVABLE(Conv2dLayer)
  explicit Conv2dLayer(const Shape& shape, Activation act = {}, ConvOptions options = same_padding(),
                       std::string name = "", bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.02),
                       Initializer b_init = zeros_init());
};
class Conv3dLayer : public ConvLayer {
 public:
  STRATA_LAYER_MOVABLE(Conv3dLayer)
  explicit Conv3dLayer(const Shape& shape, Activation act = {}, ConvOptions options = same_padding(),
                       std::string name = "", bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.02),
                       Initializer b_init = zeros_init());
};
class DeConv2dLayer : public ConvLayer {
 public:
  STRATA_LAYER_MOVABLE(DeConv2dLayer)
  explicit DeConv2dLayer(const Shape& shape, Activation act = {}, ConvOptions options = same_padding(2),
                         std::string name = "", bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.02),
                         Initializer b_init = zeros_init());
};
class DeConv3dLayer : public ConvLayer {
 public:
  STRATA_LAYER_MOVABLE(DeConv3dLayer)
  explicit DeConv3dLayer(const Shape& shape, Activation act = {}, ConvOptions options = same_padding(2),
                         std::string name = "", bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.02),
                         Initializer b_init = zeros_init());
};

}  // namespace strata::nn
