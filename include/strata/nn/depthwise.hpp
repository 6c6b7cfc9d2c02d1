// Convolutions that split the channels (TensorLayer's DepthwiseConv2d, SeparableConv2d,
// GroupConv2d) on NHWC inputs, input channels inferred.
#pragma once
#include "strata/nn/conv_variants.hpp"

namespace strata::nn {

// Each input channel convolved with its own depth_multiplier filters: x [N, H, W, C] ->
// [N, H', W', C * depth_multiplier], output channel c * depth_multiplier + m.
// W [kh, kw, C, depth_multiplier] (tf.nn.depthwise_conv2d's filter); b [C * depth_multiplier].
class DepthwiseConv2d : public Layer {
 public:
  STRATA_LAYER_MOVABLE(DepthwiseConv2d)
  void get_config(nlohmann::json& config) const override;
  explicit DepthwiseConv2d(SpatialSizes filter_size = {3, 3}, Activation act = {}, ConvOptions options = same_padding(),
                           int64_t depth_multiplier = 1, std::string name = "", int64_t in_channels = -1,
                           bool use_bias = true, Initializer w_init = glorot_uniform(),
                           Initializer b_init = zeros_init());
  Tensor W, b;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  SpatialSizes filter_size_;
  Activation act_;
  ConvOptions options_;
  int64_t depth_multiplier_, in_channels_;
  bool use_bias_;
  Initializer w_init_, b_init_;
};

// A depthwise convolution followed by a 1x1 convolution to n_filter channels (Keras's
// SeparableConv2D). depthwise_W [kh, kw, C, depth_multiplier], pointwise_W
// [1, 1, C * depth_multiplier, n_filter], b [n_filter]. Padding defaults to VALID, as TensorLayer's.
class SeparableConv2d : public Layer {
 public:
  STRATA_LAYER_MOVABLE(SeparableConv2d)
  void get_config(nlohmann::json& config) const override;
  explicit SeparableConv2d(int64_t n_filter, SpatialSizes filter_size = {3, 3}, Activation act = {},
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

// A grouped convolution: the channels split into n_group groups convolved separately.
// W [kh, kw, C / n_group, n_filter]; b [n_filter]. Stride defaults to 1 (TensorLayer's is 2).
class GroupConv2d : public ConvLayer {
 public:
  STRATA_LAYER_MOVABLE(GroupConv2d)
  GroupConv2d(int64_t n_filter, SpatialSizes filter_size = {3, 3}, int64_t n_group = 2, Activation act = {},
              ConvOptions options = same_padding(), std::string name = "", int64_t in_channels = -1,
              bool use_bias = true, Initializer w_init = glorot_uniform(), Initializer b_init = zeros_init());
};

// The functional form: x [N, H, W, C], w [kh, kw, C, M], b [C * M] or undefined.
// options.groups is ignored (it is C).
Tensor depthwise_conv2d(const Tensor& x, const Tensor& w, const Tensor& b = Tensor(), ConvOptions options = {});

}  // namespace strata::nn
