#include "strata/nn/layers/conv.hpp"

#include "conv_config.hpp"
#include "strata/nn/option_table.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {
namespace {

// The options of an explicit weight shape: filter sizes, in and out channels.
template <class Options>
Options explicit_conv_options(const char* kind, int rank, bool transposed, const Shape& shape, Activation act,
                              ConvOptions options, bool use_bias, Initializer w_init, Initializer b_init) {
  STRATA_CHECK(static_cast<int>(shape.size()) == rank + 2, kind, ": shape must have ", rank + 2, " values (", rank,
               " filter sizes, ", transposed ? "out, in" : "in, out", "), got ", shape.str());
  for (int64_t s : shape) STRATA_CHECK(s > 0, kind, ": shape must be positive, got ", shape.str());
  int64_t in = shape[rank], out = shape[rank + 1];
  if (transposed) std::swap(in, out);
  return Options{.n_filter = out,
                 .filter_size = SpatialSizes(shape.begin(), shape.begin() + rank),
                 .act = std::move(act),
                 .options = std::move(options),
                 .in_channels = in,
                 .use_bias = use_bias,
                 .w_init = std::move(w_init),
                 .b_init = std::move(b_init)};
}

}  // namespace

STRATA_CONV_LAYER_CLASS(DeConv1d, "deconv1d", 1, true, conv_transpose1d)

DeConv1d::DeConv1d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options, std::string name,
                   int64_t in_channels, bool use_bias, Initializer w_init, Initializer b_init)
    : DeConv1d(Options{.n_filter = n_filter,
                       .filter_size = std::move(filter_size),
                       .act = std::move(act),
                       .options = std::move(options),
                       .in_channels = in_channels,
                       .use_bias = use_bias,
                       .w_init = std::move(w_init),
                       .b_init = std::move(b_init)},
               std::move(name)) {}

Tensor depthwise_conv1d(const Tensor& x, const Tensor& w, const Tensor& b, ConvOptions options) {
  STRATA_CHECK(x.dim() == 3 && w.dim() == 3 && w.size(1) == x.size(2), "depthwise_conv1d: expected x [N, W, C] ",
               "and w [k, C, M], got ", x.shape().str(), " and ", w.shape().str());
  // One group per channel; [k, C, M] -> [k, 1, C * M] keeps output channel c * M + m.
  options.groups = x.size(2);
  return conv1d(x, reshape(w, {w.size(0), 1, w.size(1) * w.size(2)}), b, options);
}

SeparableConv1d::SeparableConv1d(Options options, std::string name)
    : Layer("separableconv1d", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
  expect(options_.filter_size.size() == 1,
         "filter_size must have 1 value, got " + std::to_string(static_cast<int64_t>(options_.filter_size.size())));
}

SeparableConv1d::SeparableConv1d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options,
                                 int64_t depth_multiplier, std::string name, int64_t in_channels, bool use_bias,
                                 Initializer depthwise_init, Initializer pointwise_init, Initializer b_init)
    : SeparableConv1d(Options{.n_filter = n_filter,
                              .filter_size = std::move(filter_size),
                              .act = std::move(act),
                              .options = std::move(options),
                              .depth_multiplier = depth_multiplier,
                              .in_channels = in_channels,
                              .use_bias = use_bias,
                              .depthwise_init = std::move(depthwise_init),
                              .pointwise_init = std::move(pointwise_init),
                              .b_init = std::move(b_init)},
                      std::move(name)) {}

void SeparableConv1d::build(const Shape& s) {
  Options& o = options_;
  expect(s.size() == 3, "expects input [N, W, C], got " + s.str());
  expect(o.in_channels < 0 || s[2] == o.in_channels,
         "was declared with " + std::to_string(o.in_channels) + " input channels but got input of shape " + s.str());
  o.in_channels = s[2];
  depthwise_W = add_weight("depthwise_W", {o.filter_size[0], o.in_channels, o.depth_multiplier}, o.depthwise_init);
  pointwise_W = add_weight("pointwise_W", {1, o.in_channels * o.depth_multiplier, o.n_filter}, o.pointwise_init);
  if (o.use_bias) b = add_weight("b", {o.n_filter}, o.b_init);
}

Tensor SeparableConv1d::forward(const Tensor& x) {
  expect(x.dim() == 3 && x.size(2) == options_.in_channels,
         "expected input [N, W, " + std::to_string(options_.in_channels) + "], got " + x.shape().str());
  Tensor h = depthwise_conv1d(x, depthwise_W, Tensor(), options_.options);
  return options_.act(linear(h, reshape(pointwise_W, {pointwise_W.size(1), options_.n_filter}), b));
}

// The explicit forms hand ConvLayer the sizes read off the weight shape.
#define STRATA_EXPLICIT_CONV(Class, kind, rank, transposed, op)                                                 \
  STRATA_CONV_LAYER_CLASS(Class, kind, rank, transposed, op)                                                    \
  Class::Class(const Shape& shape, Activation act, ConvOptions options, std::string name, bool use_bias,        \
               Initializer w_init, Initializer b_init)                                                          \
      : Class(explicit_conv_options<Options>(kind, rank, transposed, shape, std::move(act), std::move(options), \
                                             use_bias, std::move(w_init), std::move(b_init)),                   \
              std::move(name)) {}

STRATA_EXPLICIT_CONV(Conv1dLayer, "conv1dlayer", 1, false, conv1d)
STRATA_EXPLICIT_CONV(Conv2dLayer, "conv2dlayer", 2, false, conv2d)
STRATA_EXPLICIT_CONV(Conv3dLayer, "conv3dlayer", 3, false, conv3d)
STRATA_EXPLICIT_CONV(DeConv1dLayer, "deconv1dlayer", 1, true, conv_transpose1d)
STRATA_EXPLICIT_CONV(DeConv2dLayer, "deconv2dlayer", 2, true, conv_transpose2d)
STRATA_EXPLICIT_CONV(DeConv3dLayer, "deconv3dlayer", 3, true, conv_transpose3d)
#undef STRATA_EXPLICIT_CONV

STRATA_DEFINE_OPTIONS(DeConv1dOptions, STRATA_DECONV1D_OPTIONS)
STRATA_DEFINE_OPTIONS(SeparableConv1dOptions, STRATA_SEPARABLECONV1D_OPTIONS)
STRATA_DEFINE_OPTIONS(Conv1dLayerOptions, STRATA_CONV1DLAYER_OPTIONS)
STRATA_DEFINE_OPTIONS(Conv2dLayerOptions, STRATA_CONV2DLAYER_OPTIONS)
STRATA_DEFINE_OPTIONS(Conv3dLayerOptions, STRATA_CONV3DLAYER_OPTIONS)
STRATA_DEFINE_OPTIONS(DeConv1dLayerOptions, STRATA_DECONV1DLAYER_OPTIONS)
STRATA_DEFINE_OPTIONS(DeConv2dLayerOptions, STRATA_DECONV2DLAYER_OPTIONS)
STRATA_DEFINE_OPTIONS(DeConv3dLayerOptions, STRATA_DECONV3DLAYER_OPTIONS)
STRATA_LAYER("deconv1d", DeConv1d);
STRATA_LAYER("separableconv1d", SeparableConv1d);
STRATA_LAYER("conv1dlayer", Conv1dLayer);
STRATA_LAYER("conv2dlayer", Conv2dLayer);
STRATA_LAYER("conv3dlayer", Conv3dLayer);
STRATA_LAYER("deconv1dlayer", DeConv1dLayer);
STRATA_LAYER("deconv2dlayer", DeConv2dLayer);
STRATA_LAYER("deconv3dlayer", DeConv3dLayer);

}  // namespace strata::nn
