// Conv2d on NHWC inputs (TensorLayer's Conv2d): W is [kh, kw, in, n_filter], in inferred.
// Padding defaults to SAME, as in TensorLayer.
#pragma once
#include "strata/nn/activation.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"
#include "strata/ops/conv.hpp"

namespace strata::nn {

// The options of the convolution layers (Conv2d, Conv1d/3d, DeConv*, the explicit-shape
// *Layer forms, GroupConv2d, DeformableConv2d), one list whose defaults each class picks: every
// one of them saves n_filter, filter_size, act, options, in_channels and use_bias.
#define STRATA_CONV_FIELDS(X, n_filter_default, filter_size_default, options_default, w_init_default)               \
  X(int64_t, n_filter, n_filter_default, at_least(1), "output channels")                                              \
  X(SpatialSizes, filter_size, filter_size_default, at_least(1),                                                      \
    "kernel size per spatial axis; one value: the same for each")                                                     \
  X(Activation, act, {}, any(), "applied to the convolution's output: a name (\"relu\") or a function; empty: none") \
  X(ConvOptions, options, options_default, any(), "stride, padding, dilation and groups")                            \
  X(int64_t, in_channels, -1, at_least(-1), "input channels; -1: inferred from the first input")                     \
  X(bool, use_bias, true, any(), "adds the bias b [n_filter]")                                                       \
  X(Initializer, w_init, w_init_default, not_saved(), "initializer of W")                                             \
  X(Initializer, b_init, zeros_init(), not_saved(), "initializer of b [n_filter]")

// The separable convolutions' (SeparableConv1d, SeparableConv2d): a depthwise convolution with
// `options` (VALID by default, as TensorLayer's; its groups is the input channels whatever is
// given), then a pointwise one to n_filter channels.
#define STRATA_SEPARABLE_CONV_FIELDS(X, filter_size_default)                                                          \
  X(int64_t, n_filter, 0, at_least(1), "output channels (of the pointwise convolution)")                              \
  X(SpatialSizes, filter_size, filter_size_default, at_least(1),                                                      \
    "depthwise kernel size per spatial axis; one value: the same for each")                                           \
  X(Activation, act, {}, any(), "applied to the output: a name (\"relu\") or a function; empty: none")               \
  X(ConvOptions, options, {}, any(), "the depthwise convolution's stride, padding and dilation")                     \
  X(int64_t, depth_multiplier, 1, at_least(1), "depthwise filters per input channel")                                 \
  X(int64_t, in_channels, -1, at_least(-1), "input channels; -1: inferred from the first input")                     \
  X(bool, use_bias, true, any(), "adds the bias b [n_filter]")                                                       \
  X(Initializer, depthwise_init, glorot_uniform(), not_saved(), "initializer of depthwise_W")                        \
  X(Initializer, pointwise_init, glorot_uniform(), not_saved(), "initializer of pointwise_W")                        \
  X(Initializer, b_init, zeros_init(), not_saved(), "initializer of b [n_filter]")

#define STRATA_CONV2D_OPTIONS(X) \
  STRATA_CONV_FIELDS(X, 0, (SpatialSizes{3, 3}), (ConvOptions{.padding = Padding::same()}), glorot_uniform())
STRATA_OPTIONS(Conv2dOptions, STRATA_CONV2D_OPTIONS);

class Conv2d : public Layer {
 public:
  using Options = Conv2dOptions;
  STRATA_LAYER_MOVABLE(Conv2d)
  explicit Conv2d(Options options, std::string name = "");
  Conv2d(int64_t n_filter, SpatialSizes filter_size = {3, 3}, Activation act = {}, ConvOptions options = same_padding(),
         std::string name = "", int64_t in_channels = -1, bool use_bias = true, Initializer w_init = glorot_uniform(),
         Initializer b_init = zeros_init());
  // filter_size with one value per axis; in_channels once inferred.
  const Options& options() const { return options_; }
  Tensor W, b;
  static ConvOptions same_padding() { return ConvOptions{.padding = Padding::same()}; }

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn
