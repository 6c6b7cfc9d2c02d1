// Convolution layers: 1-, 2- and 3-d convolutions and deconvolutions (Keras's and TensorLayer's
// forms), depthwise, separable and grouped, deformable, sub-pixel, Unfold/Fold, and the bilinear
// deconvolution initializer.
// One header per layer family (docs/architecture.md, "nn"); each section below keeps its own notes.
#pragma once
#include "strata/nn/initializers.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/layers/activation.hpp"
#include "strata/nn/options.hpp"
#include "strata/ops/conv.hpp"

// Conv2d on NHWC inputs (TensorLayer's Conv2d): W is [kh, kw, in, n_filter], in inferred.
// Padding defaults to SAME, as in TensorLayer.
namespace strata::nn {

// The options of the convolution layers (Conv2d, Conv1d/3d, DeConv*, the explicit-shape
// *Layer forms, GroupConv2d, DeformableConv2d), one list whose defaults each class picks: every
// one of them saves n_filter, filter_size, act, options, in_channels and use_bias.
#define STRATA_CONV_FIELDS(X, n_filter_default, filter_size_default, options_default, w_init_default)                \
  X(int64_t, n_filter, n_filter_default, at_least(1), "output channels")                                             \
  X(SpatialSizes, filter_size, filter_size_default, at_least(1),                                                     \
    "kernel size per spatial axis; one value: the same for each")                                                    \
  X(Activation, act, {}, any(), "applied to the convolution's output: a name (\"relu\") or a function; empty: none") \
  X(ConvOptions, options, options_default, any(), "stride, padding, dilation and groups")                            \
  X(int64_t, in_channels, -1, at_least(-1), "input channels; -1: inferred from the first input")                     \
  X(bool, use_bias, true, any(), "adds the bias b [n_filter]")                                                       \
  X(Initializer, w_init, w_init_default, not_saved(), "initializer of W")                                            \
  X(Initializer, b_init, zeros_init(), not_saved(), "initializer of b [n_filter]")

// The separable convolutions' (SeparableConv1d, SeparableConv2d): a depthwise convolution with
// `options` (VALID by default, as TensorLayer's; its groups is the input channels whatever is
// given), then a pointwise one to n_filter channels.
#define STRATA_SEPARABLE_CONV_FIELDS(X, filter_size_default)                                           \
  X(int64_t, n_filter, 0, at_least(1), "output channels (of the pointwise convolution)")               \
  X(SpatialSizes, filter_size, filter_size_default, at_least(1),                                       \
    "depthwise kernel size per spatial axis; one value: the same for each")                            \
  X(Activation, act, {}, any(), "applied to the output: a name (\"relu\") or a function; empty: none") \
  X(ConvOptions, options, {}, any(), "the depthwise convolution's stride, padding and dilation")       \
  X(int64_t, depth_multiplier, 1, at_least(1), "depthwise filters per input channel")                  \
  X(int64_t, in_channels, -1, at_least(-1), "input channels; -1: inferred from the first input")       \
  X(bool, use_bias, true, any(), "adds the bias b [n_filter]")                                         \
  X(Initializer, depthwise_init, glorot_uniform(), not_saved(), "initializer of depthwise_W")          \
  X(Initializer, pointwise_init, glorot_uniform(), not_saved(), "initializer of pointwise_W")          \
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

// Convolution layers beside Conv2d (TensorLayer's Conv1d, Conv3d, DeConv2d, DeConv3d) on
// channels-last inputs, input channels inferred. Weights: Conv W [k..., in, n_filter];
// DeConv W [k..., n_filter, in] (TensorFlow's conv_transpose filter); b [n_filter].
// Padding defaults to SAME; DeConv strides to 2 (TensorLayer's defaults).
namespace strata::nn {

inline ConvOptions same_padding(int64_t stride = 1) {
  return ConvOptions{.stride = {stride}, .padding = Padding::same()};
}

// ConvLayer's own options: those of each class below, whose defaults differ.
#define STRATA_CONV_LAYER_OPTIONS(X) STRATA_CONV_FIELDS(X, 0, {}, {}, glorot_uniform())
STRATA_OPTIONS(ConvLayerOptions, STRATA_CONV_LAYER_OPTIONS);

// A convolution of `rank` spatial axes, plain or transposed, as a layer; the classes below
// only pick the op and the defaults (each its own options struct, options() as that struct).
class ConvLayer : public Layer {
 public:
  STRATA_LAYER_MOVABLE(ConvLayer)
  using ConvFn = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const ConvOptions&);
  ConvLayer(std::string kind, int rank, bool transposed, ConvFn conv, ConvLayerOptions options, std::string name);
  ConvLayer(std::string kind, int rank, bool transposed, ConvFn conv, int64_t n_filter, SpatialSizes filter_size,
            Activation act, ConvOptions options, std::string name, int64_t in_channels, bool use_bias,
            Initializer w_init, Initializer b_init);
  // filter_size with one value per axis; in_channels once inferred.
  const ConvLayerOptions& options() const { return options_; }
  Tensor W, b;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  std::string layout() const;  // "[N, H, W, C]" for rank 2
  int rank_;
  bool transposed_;
  ConvFn conv_;
  ConvLayerOptions options_;
};

// x [N, W, C]; W [k, in, n_filter].
#define STRATA_CONV1D_OPTIONS(X) STRATA_CONV_FIELDS(X, 0, (SpatialSizes{5}), same_padding(), glorot_uniform())
STRATA_OPTIONS(Conv1dOptions, STRATA_CONV1D_OPTIONS);
class Conv1d : public ConvLayer {
 public:
  using Options = Conv1dOptions;
  STRATA_LAYER_MOVABLE(Conv1d)
  explicit Conv1d(Options options, std::string name = "");
  Conv1d(int64_t n_filter, SpatialSizes filter_size = {5}, Activation act = {}, ConvOptions options = same_padding(),
         std::string name = "", int64_t in_channels = -1, bool use_bias = true, Initializer w_init = glorot_uniform(),
         Initializer b_init = zeros_init());
  Options options() const;
};

// x [N, D, H, W, C]; W [kd, kh, kw, in, n_filter].
#define STRATA_CONV3D_OPTIONS(X) STRATA_CONV_FIELDS(X, 0, (SpatialSizes{3, 3, 3}), same_padding(), glorot_uniform())
STRATA_OPTIONS(Conv3dOptions, STRATA_CONV3D_OPTIONS);
class Conv3d : public ConvLayer {
 public:
  using Options = Conv3dOptions;
  STRATA_LAYER_MOVABLE(Conv3d)
  explicit Conv3d(Options options, std::string name = "");
  Conv3d(int64_t n_filter, SpatialSizes filter_size = {3, 3, 3}, Activation act = {},
         ConvOptions options = same_padding(), std::string name = "", int64_t in_channels = -1, bool use_bias = true,
         Initializer w_init = glorot_uniform(), Initializer b_init = zeros_init());
  Options options() const;
};

// Transposed 2-D convolution: x [N, H, W, C] -> [N, H * stride, W * stride, n_filter] (SAME);
// W [kh, kw, n_filter, in].
#define STRATA_DECONV2D_OPTIONS(X) STRATA_CONV_FIELDS(X, 0, (SpatialSizes{3, 3}), same_padding(2), glorot_uniform())
STRATA_OPTIONS(DeConv2dOptions, STRATA_DECONV2D_OPTIONS);
class DeConv2d : public ConvLayer {
 public:
  using Options = DeConv2dOptions;
  STRATA_LAYER_MOVABLE(DeConv2d)
  explicit DeConv2d(Options options, std::string name = "");
  DeConv2d(int64_t n_filter, SpatialSizes filter_size = {3, 3}, Activation act = {},
           ConvOptions options = same_padding(2), std::string name = "", int64_t in_channels = -1, bool use_bias = true,
           Initializer w_init = glorot_uniform(), Initializer b_init = zeros_init());
  Options options() const;
};

// Transposed 3-D convolution; W [kd, kh, kw, n_filter, in].
#define STRATA_DECONV3D_OPTIONS(X) STRATA_CONV_FIELDS(X, 0, (SpatialSizes{3, 3, 3}), same_padding(2), glorot_uniform())
STRATA_OPTIONS(DeConv3dOptions, STRATA_DECONV3D_OPTIONS);
class DeConv3d : public ConvLayer {
 public:
  using Options = DeConv3dOptions;
  STRATA_LAYER_MOVABLE(DeConv3d)
  explicit DeConv3d(Options options, std::string name = "");
  DeConv3d(int64_t n_filter, SpatialSizes filter_size = {3, 3, 3}, Activation act = {},
           ConvOptions options = same_padding(2), std::string name = "", int64_t in_channels = -1, bool use_bias = true,
           Initializer w_init = glorot_uniform(), Initializer b_init = zeros_init());
  Options options() const;
};

}  // namespace strata::nn

// More convolution layers on channels-last inputs: TensorLayer's DeConv1d and SeparableConv1d,
// and its expert forms Conv1dLayer, Conv2dLayer, Conv3dLayer, DeConv1dLayer, DeConv2dLayer,
// DeConv3dLayer, which take the whole weight shape instead of n_filter and filter_size.
namespace strata::nn {

// Transposed 1-D convolution: x [N, W, C] -> [N, W * stride, n_filter] (SAME); W [k, n_filter, in].
#define STRATA_DECONV1D_OPTIONS(X) STRATA_CONV_FIELDS(X, 0, (SpatialSizes{3}), same_padding(2), glorot_uniform())
STRATA_OPTIONS(DeConv1dOptions, STRATA_DECONV1D_OPTIONS);
class DeConv1d : public ConvLayer {
 public:
  using Options = DeConv1dOptions;
  STRATA_LAYER_MOVABLE(DeConv1d)
  explicit DeConv1d(Options options, std::string name = "");
  DeConv1d(int64_t n_filter, SpatialSizes filter_size = {3}, Activation act = {}, ConvOptions options = same_padding(2),
           std::string name = "", int64_t in_channels = -1, bool use_bias = true, Initializer w_init = glorot_uniform(),
           Initializer b_init = zeros_init());
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

// Convolutions that split the channels (TensorLayer's DepthwiseConv2d, SeparableConv2d,
// GroupConv2d) on NHWC inputs, input channels inferred.
namespace strata::nn {

// Each input channel convolved with its own depth_multiplier filters: x [N, H, W, C] ->
// [N, H', W', C * depth_multiplier], output channel c * depth_multiplier + m.
// W [kh, kw, C, depth_multiplier] (tf.nn.depthwise_conv2d's filter); b [C * depth_multiplier].
#define STRATA_DEPTHWISECONV2D_OPTIONS(X)                                                                          \
  X(SpatialSizes, filter_size, (SpatialSizes{3, 3}), at_least(1), "kernel size per spatial axis; one value: both") \
  X(Activation, act, {}, any(), "applied to the output: a name (\"relu\") or a function; empty: none")             \
  X(ConvOptions, options, same_padding(), any(), "stride, padding and dilation; groups is the input channels")     \
  X(int64_t, depth_multiplier, 1, at_least(1), "filters per input channel")                                        \
  X(int64_t, in_channels, -1, at_least(-1), "input channels; -1: inferred from the first input")                   \
  X(bool, use_bias, true, any(), "adds the bias b [C * depth_multiplier]")                                         \
  X(Initializer, w_init, glorot_uniform(), not_saved(), "initializer of W")                                        \
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
#define STRATA_GROUPCONV2D_OPTIONS(X)                                                                    \
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

// Deformable convolution (Dai et al. 2017; TensorLayer's DeformableConv2d): each kernel tap of
// each output position reads the input bilinearly at its regular place plus a learned offset.
namespace strata::nn {

// x [N, H, W, C]; offset [N, OH, OW, 2 * kh * kw]: for tap t = i * kw + j, offset[..., 2t] moves
// its row and offset[..., 2t + 1] its column (in pixels); w [kh, kw, C, O] (Conv2d's layout);
// b [O] or undefined. OH, OW and the regular tap positions follow conv2d's options (stride,
// padding, dilation; groups 1). Samples outside the image read zeros, so zero offsets give
// conv2d(x, w, b, options) exactly (TensorLayer clamps positions to the border instead).
Tensor deform_conv2d(const Tensor& x, const Tensor& offset, const Tensor& w, const Tensor& b = Tensor(),
                     const ConvOptions& options = {});

// Called with {x, offset}; the offsets usually come from a Conv2d(2 * kh * kw) of x, as in
// TensorLayer's example. W [1, 1, kh * kw, in, n_filter] (TensorLayer's), b [n_filter].
// Padding defaults to SAME, stride to 1 (TensorLayer's only mode); groups must be 1.
#define STRATA_DEFORMABLECONV2D_OPTIONS(X)                                                   \
  STRATA_CONV_FIELDS(X, 32, (SpatialSizes{3, 3}), (ConvOptions{.padding = Padding::same()}), \
                     (truncated_normal(0.0, 0.02)))
STRATA_OPTIONS(DeformableConv2dOptions, STRATA_DEFORMABLECONV2D_OPTIONS);
class DeformableConv2d : public Layer {
 public:
  using Options = DeformableConv2dOptions;
  STRATA_LAYER_MOVABLE(DeformableConv2d)
  explicit DeformableConv2d(Options options, std::string name = "");
  explicit DeformableConv2d(int64_t n_filter = 32, SpatialSizes filter_size = {3, 3}, Activation act = {},
                            ConvOptions options = ConvOptions{.padding = Padding::same()}, std::string name = "",
                            int64_t in_channels = -1, bool use_bias = true,
                            Initializer w_init = truncated_normal(0.0, 0.02), Initializer b_init = zeros_init());
  // filter_size with two values; in_channels once inferred.
  const Options& options() const { return options_; }
  Tensor W, b;

 protected:
  void build_many(const std::vector<Shape>& input_shapes) override;
  Tensor forward_many(const std::vector<Tensor>& xs) override;
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn

// SubpixelConv1d / SubpixelConv2d (TensorLayer's, for SRGAN): the sub-pixel rearrangement
// ("pixel shuffle", tf.depth_to_space) of channels-last inputs. The channel axis, seen as
// [scale (, scale), C / scale^rank], moves its scale factors into the spatial axes:
//   1-D: out[n, w*s + i, c]          = in[n, w, i*C' + c]
//   2-D: out[n, h*s + i, w*s + j, c] = in[n, h, w, (i*s + j)*C' + c]
// (TensorFlow's DCR order; PyTorch's pixel_shuffle on NCHW orders the channels c*s*s + i*s + j.)
namespace strata::nn {

// The functional form: x [N, spatial... (rank 1 or 2), C] with C divisible by scale^rank.
Tensor depth_to_space(const Tensor& x, int64_t scale);

// The options of SubpixelConv1d and SubpixelConv2d.
#define STRATA_SUBPIXEL_CONV_OPTIONS(X)                                      \
  X(int64_t, scale, 2, at_least(1), "the upscaling factor per spatial axis") \
  X(Activation, act, {}, any(), "applied to the output: a name (\"relu\") or a function; empty: none")
STRATA_OPTIONS(SubpixelConvOptions, STRATA_SUBPIXEL_CONV_OPTIONS);

// act(depth_to_space(x, scale)) on inputs of `rank` spatial axes; the classes below fix it.
class SubpixelConv : public Layer {
 public:
  using Options = SubpixelConvOptions;
  STRATA_LAYER_MOVABLE(SubpixelConv)
  SubpixelConv(std::string kind, int rank, Options options, std::string name);
  SubpixelConv(std::string kind, int rank, int64_t scale, Activation act, std::string name);
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  int rank_;
  Options options_;
};

struct SubpixelConv1d : SubpixelConv {
  STRATA_LAYER_MOVABLE(SubpixelConv1d)
  explicit SubpixelConv1d(Options options, std::string name = "")
      : SubpixelConv("subpixelconv1d", 1, std::move(options), std::move(name)) {}
  explicit SubpixelConv1d(int64_t scale = 2, Activation act = {}, std::string name = "")
      : SubpixelConv1d(Options{.scale = scale, .act = std::move(act)}, std::move(name)) {}
};
struct SubpixelConv2d : SubpixelConv {
  STRATA_LAYER_MOVABLE(SubpixelConv2d)
  explicit SubpixelConv2d(Options options, std::string name = "")
      : SubpixelConv("subpixelconv2d", 2, std::move(options), std::move(name)) {}
  explicit SubpixelConv2d(int64_t scale = 2, Activation act = {}, std::string name = "")
      : SubpixelConv2d(Options{.scale = scale, .act = std::move(act)}, std::move(name)) {}
};

}  // namespace strata::nn

// Sliding-window patches of NHWC images and their adjoint (PyTorch's Unfold and Fold,
// tf.image.extract_patches). Patches keep the spatial layout: [N, OH, OW, kh * kw * C], each
// patch in (i, j, c) order — the order of a Conv2d weight [kh, kw, C, O] flattened, so
// unfold2d(x) · W.reshape({-1, O}) is conv2d(x, W) with the same options.
namespace strata::nn {

// x [N, H, W, C] -> [N, OH, OW, kh * kw * C]; options as for conv2d (stride, padding,
// dilation; groups must be 1). Padded positions read zeros.
Tensor unfold2d(const Tensor& x, const SpatialSizes& kernel, const ConvOptions& options = {});
// The adjoint of unfold2d: patches [N, OH, OW, kh * kw * C] summed back into an image
// [N, H, W, C] of output_size {H, W} (overlapping elements add; padded ones are dropped).
Tensor fold2d(const Tensor& patches, const SpatialSizes& output_size, const SpatialSizes& kernel,
              const ConvOptions& options = {});

#define STRATA_UNFOLD_OPTIONS(X)                                                \
  X(SpatialSizes, kernel, {}, at_least(1), "window {kh, kw} (one value: both)") \
  X(ConvOptions, options, {}, any(), "stride, padding and dilation as for conv2d; groups 1")
STRATA_OPTIONS(UnfoldOptions, STRATA_UNFOLD_OPTIONS);

class Unfold : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Unfold)
  using Options = UnfoldOptions;
  explicit Unfold(Options options, std::string name = "");
  explicit Unfold(SpatialSizes kernel, ConvOptions options = {}, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

#define STRATA_FOLD_OPTIONS(X)                                                  \
  X(SpatialSizes, output_size, {}, at_least(1), "the image's {H, W}")           \
  X(SpatialSizes, kernel, {}, at_least(1), "window {kh, kw} (one value: both)") \
  X(ConvOptions, options, {}, any(), "stride, padding and dilation as for conv2d; groups 1")
STRATA_OPTIONS(FoldOptions, STRATA_FOLD_OPTIONS);

class Fold : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Fold)
  using Options = FoldOptions;
  explicit Fold(Options options, std::string name = "");
  Fold(SpatialSizes output_size, SpatialSizes kernel, ConvOptions options = {}, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn

// TensorLayer's deconv2d_bilinear_upsampling_initializer: DeConv2d weights that make the layer a
// bilinear up-sampler (stride = (k + 1) / 2 for a k x k filter), per channel.
namespace strata::nn {

// For W [k, k, out, in] (DeConv2d's layout; square, in >= out): float32 zeros but for
// W[:, :, i, i] = the bilinear kernel (1 - |x - c| / f) (1 - |y - c| / f), f = (k + 1) / 2 (integer
// division), c = f - 1 for odd k and f - 0.5 for even k.
Initializer deconv2d_bilinear_upsampling_initializer();

}  // namespace strata::nn
