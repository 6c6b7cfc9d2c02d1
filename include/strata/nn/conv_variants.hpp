// Convolution layers beside Conv2d (TensorLayer's Conv1d, Conv3d, DeConv2d, DeConv3d) on
// channels-last inputs, input channels inferred. Weights: Conv W [k..., in, n_filter];
// DeConv W [k..., n_filter, in] (TensorFlow's conv_transpose filter); b [n_filter].
// Padding defaults to SAME; DeConv strides to 2 (TensorLayer's defaults).
#pragma once
#include "strata/nn/activation.hpp"
#include "strata/nn/conv.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"
#include "strata/ops/conv.hpp"

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
#define STRATA_CONV3D_OPTIONS(X) \
  STRATA_CONV_FIELDS(X, 0, (SpatialSizes{3, 3, 3}), same_padding(), glorot_uniform())
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
#define STRATA_DECONV2D_OPTIONS(X) \
  STRATA_CONV_FIELDS(X, 0, (SpatialSizes{3, 3}), same_padding(2), glorot_uniform())
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
#define STRATA_DECONV3D_OPTIONS(X) \
  STRATA_CONV_FIELDS(X, 0, (SpatialSizes{3, 3, 3}), same_padding(2), glorot_uniform())
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
