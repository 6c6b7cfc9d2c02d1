// More convolution layers on channels-last inputs: TensorLayer's DeConv1d and SeparableConv1d,
// and its expert forms Conv1dLayer, Conv2dLayer, Conv3dLayer, DeConv1dLayer, DeConv2dLayer,
// DeConv3dLayer, which take the whole weight shape instead of n_filter and filter_size.
#pragma once
#include "strata/nn/conv_variants.hpp"

namespace strata::nn {

// Transposed 1-D convolution: x [N, W, C] -> [N, W * stride, n_filter] (SAME); W [k, n_filter, in].
#define STRATA_DECONV1D_OPTIONS(X) STRATA_CONV_FIELDS(X, 0, (SpatialSizes{3}), same_padding(2), glorot_uniform())
STRATA_OPTIONS(DeConv1dOptions, STRATA_DECONV1D_OPTIONS);
class DeConv1d : public ConvLayer {
 public:
  using Options = DeConv1dOptions;
  STRATA_LAYER_MOVABLE(DeConv1d)
  explicit DeConv1d(Options options, std::string name = "");
  DeConv1d(int64_t n_filter, SpatialSizes filter_size = {3}, Activation act = {},
           ConvOptions options = same_padding(2), std::string name = "", int64_t in_channels = -1, bool use_bias = true,
           Initializer w_init = glorot_uniform(), Initializer b_init = zeros_init());
  Options options() const;
};

// A depthwise 1-D convolution followed by a pointwise one (Keras's SeparableConv1D, which
// TensorLayer's wraps): depthwise_W [k, C, depth_multiplier], pointwise_W
// [1, C * depth_multiplier, n_filter], b [n_filter]. Padding defaults to VALID, as TensorLayer's.
#define STRATA_SEPARABLECONV1D_OPTIONS(X) STRATA_SEPARABLE_CONV_FIELDS(X, (SpatialSizes{3}))
STRATA_OPTIONS(SeparableConv1dOptions, STRATA_SEPARABLECONV1D_OPTIONS);
class SeparableConv1d : public Layer {
 public:
  using Options = SeparableConv1dOptions;
  STRATA_LAYER_MOVABLE(SeparableConv1d)
  explicit SeparableConv1d(Options options, std::string name = "");
  explicit SeparableConv1d(int64_t n_filter, SpatialSizes filter_size = {3}, Activation act = {},
                           ConvOptions options = {}, int64_t depth_multiplier = 1, std::string name = "",
                           int64_t in_channels = -1, bool use_bias = true,
                           Initializer depthwise_init = glorot_uniform(), Initializer pointwise_init = glorot_uniform(),
                           Initializer b_init = zeros_init());
  // in_channels once inferred.
  const Options& options() const { return options_; }
  Tensor depthwise_W, pointwise_W, b;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

// The functional form: x [N, W, C], w [k, C, M] -> [N, W', C * M], output channel c * M + m.
Tensor depthwise_conv1d(const Tensor& x, const Tensor& w, const Tensor& b = Tensor(), ConvOptions options = {});

// TensorLayer 1.x's explicit-shape convolutions. `shape` is the whole W: [k..., in, out] for a
// convolution, [k..., out, in] for a transposed one (TensorFlow's filter layouts); the input's
// channel count is checked against it. Initializers default to TensorLayer 1.x's
// (truncated normal of stddev 0.02, zero bias). Their options are ConvLayer's (n_filter,
// filter_size, in_channels, ...), the shape taken apart; filter_size defaults to that of
// TensorLayer 1.x's default shape.
#define STRATA_EXPLICIT_CONV_OPTIONS(X, filter_size_default, options_default) \
  STRATA_CONV_FIELDS(X, 0, filter_size_default, options_default, (truncated_normal(0.0, 0.02)))
#define STRATA_CONV1DLAYER_OPTIONS(X) STRATA_EXPLICIT_CONV_OPTIONS(X, (SpatialSizes{5}), same_padding())
#define STRATA_CONV2DLAYER_OPTIONS(X) STRATA_EXPLICIT_CONV_OPTIONS(X, (SpatialSizes{5, 5}), same_padding())
#define STRATA_CONV3DLAYER_OPTIONS(X) STRATA_EXPLICIT_CONV_OPTIONS(X, (SpatialSizes{2, 2, 2}), same_padding())
#define STRATA_DECONV1DLAYER_OPTIONS(X) STRATA_EXPLICIT_CONV_OPTIONS(X, (SpatialSizes{3}), same_padding(2))
#define STRATA_DECONV2DLAYER_OPTIONS(X) STRATA_EXPLICIT_CONV_OPTIONS(X, (SpatialSizes{3, 3}), same_padding(2))
#define STRATA_DECONV3DLAYER_OPTIONS(X) STRATA_EXPLICIT_CONV_OPTIONS(X, (SpatialSizes{2, 2, 2}), same_padding(2))
STRATA_OPTIONS(Conv1dLayerOptions, STRATA_CONV1DLAYER_OPTIONS);
STRATA_OPTIONS(Conv2dLayerOptions, STRATA_CONV2DLAYER_OPTIONS);
STRATA_OPTIONS(Conv3dLayerOptions, STRATA_CONV3DLAYER_OPTIONS);
STRATA_OPTIONS(DeConv1dLayerOptions, STRATA_DECONV1DLAYER_OPTIONS);
STRATA_OPTIONS(DeConv2dLayerOptions, STRATA_DECONV2DLAYER_OPTIONS);
STRATA_OPTIONS(DeConv3dLayerOptions, STRATA_DECONV3DLAYER_OPTIONS);

class Conv1dLayer : public ConvLayer {
 public:
  using Options = Conv1dLayerOptions;
  STRATA_LAYER_MOVABLE(Conv1dLayer)
  explicit Conv1dLayer(Options options, std::string name = "");
  explicit Conv1dLayer(const Shape& shape, Activation act = {}, ConvOptions options = same_padding(),
                       std::string name = "", bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.02),
                       Initializer b_init = zeros_init());
  Options options() const;
};
class Conv2dLayer : public ConvLayer {
 public:
  using Options = Conv2dLayerOptions;
  STRATA_LAYER_MOVABLE(Conv2dLayer)
  explicit Conv2dLayer(Options options, std::string name = "");
  explicit Conv2dLayer(const Shape& shape, Activation act = {}, ConvOptions options = same_padding(),
                       std::string name = "", bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.02),
                       Initializer b_init = zeros_init());
  Options options() const;
};
class Conv3dLayer : public ConvLayer {
 public:
  using Options = Conv3dLayerOptions;
  STRATA_LAYER_MOVABLE(Conv3dLayer)
  explicit Conv3dLayer(Options options, std::string name = "");
  explicit Conv3dLayer(const Shape& shape, Activation act = {}, ConvOptions options = same_padding(),
                       std::string name = "", bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.02),
                       Initializer b_init = zeros_init());
  Options options() const;
};
// TensorLayer 2's DeConv1dLayer (tf.nn.conv1d_transpose): shape [k, out, in], strides
// (1, s, 1) as ConvOptions' stride s (default 2, SAME); its outputs_shape follows from the input.
class DeConv1dLayer : public ConvLayer {
 public:
  using Options = DeConv1dLayerOptions;
  STRATA_LAYER_MOVABLE(DeConv1dLayer)
  explicit DeConv1dLayer(Options options, std::string name = "");
  explicit DeConv1dLayer(const Shape& shape, Activation act = {}, ConvOptions options = same_padding(2),
                         std::string name = "", bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.02),
                         Initializer b_init = zeros_init());
  Options options() const;
};
class DeConv2dLayer : public ConvLayer {
 public:
  using Options = DeConv2dLayerOptions;
  STRATA_LAYER_MOVABLE(DeConv2dLayer)
  explicit DeConv2dLayer(Options options, std::string name = "");
  explicit DeConv2dLayer(const Shape& shape, Activation act = {}, ConvOptions options = same_padding(2),
                         std::string name = "", bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.02),
                         Initializer b_init = zeros_init());
  Options options() const;
};
class DeConv3dLayer : public ConvLayer {
 public:
  using Options = DeConv3dLayerOptions;
  STRATA_LAYER_MOVABLE(DeConv3dLayer)
  explicit DeConv3dLayer(Options options, std::string name = "");
  explicit DeConv3dLayer(const Shape& shape, Activation act = {}, ConvOptions options = same_padding(2),
                         std::string name = "", bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.02),
                         Initializer b_init = zeros_init());
  Options options() const;
};

}  // namespace strata::nn
