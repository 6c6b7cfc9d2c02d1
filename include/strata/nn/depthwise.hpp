// Convolutions that split the channels (TensorLayer's DepthwiseConv2d, SeparableConv2d,
// GroupConv2d) on NHWC inputs, input channels inferred.
#pragma once
#include "strata/nn/conv_variants.hpp"

namespace strata::nn {

// Each input channel convolved with its own depth_multiplier filters: x [N, H, W, C] ->
// [N, H', W', C * depth_multiplier], output channel c * depth_multiplier + m.
// W [kh, kw, C, depth_multiplier] (tf.nn.depthwise_conv2d's filter); b [C * depth_multiplier].
#define STRATA_DEPTHWISECONV2D_OPTIONS(X)                                                                            \
  X(SpatialSizes, filter_size, (SpatialSizes{3, 3}), at_least(1), "kernel size per spatial axis; one value: both")   \
  X(Activation, act, {}, any(), "applied to the output: a name (\"relu\") or a function; empty: none")              \
  X(ConvOptions, options, same_padding(), any(), "stride, padding and dilation; groups is the input channels")      \
  X(int64_t, depth_multiplier, 1, at_least(1), "filters per input channel")                                           \
  X(int64_t, in_channels, -1, at_least(-1), "input channels; -1: inferred from the first input")                     \
  X(bool, use_bias, true, any(), "adds the bias b [C * depth_multiplier]")                                           \
  X(Initializer, w_init, glorot_uniform(), not_saved(), "initializer of W")                                           \
  X(Initializer, b_init, zeros_init(), not_saved(), "initializer of b")
STRATA_OPTIONS(DepthwiseConv2dOptions, STRATA_DEPTHWISECONV2D_OPTIONS);
class DepthwiseConv2d : public Layer {
 public:
  using Options = DepthwiseConv2dOptions;
  STRATA_LAYER_MOVABLE(DepthwiseConv2d)
  explicit DepthwiseConv2d(Options options, std::string name = "");
  explicit DepthwiseConv2d(SpatialSizes filter_size = {3, 3}, Activation act = {}, ConvOptions options = same_padding(),
                           int64_t depth_multiplier = 1, std::string name = "", int64_t in_channels = -1,
                           bool use_bias = true, Initializer w_init = glorot_uniform(),
                           Initializer b_init = zeros_init());
  // filter_size with two values; in_channels once inferred.
  const Options& options() const { return options_; }
  Tensor W, b;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

// A depthwise convolution followed by a 1x1 convolution to n_filter channels (Keras's
// SeparableConv2D). depthwise_W [kh, kw, C, depth_multiplier], pointwise_W
// [1, 1, C * depth_multiplier, n_filter], b [n_filter]. Padding defaults to VALID, as TensorLayer's.
#define STRATA_SEPARABLECONV2D_OPTIONS(X) STRATA_SEPARABLE_CONV_FIELDS(X, (SpatialSizes{3, 3}))
STRATA_OPTIONS(SeparableConv2dOptions, STRATA_SEPARABLECONV2D_OPTIONS);
class SeparableConv2d : public Layer {
 public:
  using Options = SeparableConv2dOptions;
  STRATA_LAYER_MOVABLE(SeparableConv2d)
  explicit SeparableConv2d(Options options, std::string name = "");
  explicit SeparableConv2d(int64_t n_filter, SpatialSizes filter_size = {3, 3}, Activation act = {},
                           ConvOptions options = {}, int64_t depth_multiplier = 1, std::string name = "",
                           int64_t in_channels = -1, bool use_bias = true,
                           Initializer depthwise_init = glorot_uniform(), Initializer pointwise_init = glorot_uniform(),
                           Initializer b_init = zeros_init());
  // filter_size with two values; in_channels once inferred.
  const Options& options() const { return options_; }
  Tensor depthwise_W, pointwise_W, b;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

// A grouped convolution: the channels split into n_group groups (options.groups) convolved
// separately. W [kh, kw, C / n_group, n_filter]; b [n_filter]. Stride defaults to 1
// (TensorLayer's is 2).
#define STRATA_GROUPCONV2D_OPTIONS(X)                                                                   \
  STRATA_CONV_FIELDS(X, 0, (SpatialSizes{3, 3}), (ConvOptions{.padding = Padding::same(), .groups = 2}), \
                     glorot_uniform())
STRATA_OPTIONS(GroupConv2dOptions, STRATA_GROUPCONV2D_OPTIONS);
class GroupConv2d : public ConvLayer {
 public:
  using Options = GroupConv2dOptions;
  STRATA_LAYER_MOVABLE(GroupConv2d)
  explicit GroupConv2d(Options options, std::string name = "");
  GroupConv2d(int64_t n_filter, SpatialSizes filter_size = {3, 3}, int64_t n_group = 2, Activation act = {},
              ConvOptions options = same_padding(), std::string name = "", int64_t in_channels = -1,
              bool use_bias = true, Initializer w_init = glorot_uniform(), Initializer b_init = zeros_init());
  Options options() const;
};

// The functional form: x [N, H, W, C], w [kh, kw, C, M], b [C * M] or undefined.
// options.groups is ignored (it is C).
Tensor depthwise_conv2d(const Tensor& x, const Tensor& w, const Tensor& b = Tensor(), ConvOptions options = {});

}  // namespace strata::nn
