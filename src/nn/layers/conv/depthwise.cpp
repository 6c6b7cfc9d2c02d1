#include "strata/nn/layers/conv.hpp"

#include "conv_config.hpp"
#include "strata/nn/option_table.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {
namespace {

SpatialSizes pair_of(SpatialSizes s) {
  if (s.size() == 1) s.push_back(s[0]);
  return s;
}

}  // namespace

Tensor depthwise_conv2d(const Tensor& x, const Tensor& w, const Tensor& b, ConvOptions options) {
  STRATA_CHECK(x.dim() == 4 && w.dim() == 4 && w.size(2) == x.size(3), "depthwise_conv2d: expected x [N, H, W, C] ",
               "and w [kh, kw, C, M], got ", x.shape().str(), " and ", w.shape().str());
  // A grouped convolution with one group per channel: [kh, kw, C, M] -> [kh, kw, 1, C * M] keeps
  // output channel c * M + m, TensorFlow's order.
  options.groups = x.size(3);
  return conv2d(x, reshape(w, {w.size(0), w.size(1), 1, w.size(2) * w.size(3)}), b, options);
}

DepthwiseConv2d::DepthwiseConv2d(Options options, std::string name)
    : Layer("depthwiseconv2d", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
  options_.filter_size = pair_of(std::move(options_.filter_size));
  expect(options_.filter_size.size() == 2, "filter_size must have 1 or 2 values");
}

DepthwiseConv2d::DepthwiseConv2d(SpatialSizes filter_size, Activation act, ConvOptions options,
                                 int64_t depth_multiplier, std::string name, int64_t in_channels, bool use_bias,
                                 Initializer w_init, Initializer b_init)
    : DepthwiseConv2d(Options{.filter_size = std::move(filter_size),
                              .act = std::move(act),
                              .options = std::move(options),
                              .depth_multiplier = depth_multiplier,
                              .in_channels = in_channels,
                              .use_bias = use_bias,
                              .w_init = std::move(w_init),
                              .b_init = std::move(b_init)},
                      std::move(name)) {}

void DepthwiseConv2d::build(const Shape& s) {
  Options& o = options_;
  expect(s.size() == 4, "expects input [N, H, W, C], got " + s.str());
  expect(o.in_channels < 0 || s[3] == o.in_channels,
         "was declared with " + std::to_string(o.in_channels) + " input channels but got input of shape " + s.str());
  o.in_channels = s[3];
  W = add_weight("W", {o.filter_size[0], o.filter_size[1], o.in_channels, o.depth_multiplier}, o.w_init);
  if (o.use_bias) b = add_weight("b", {o.in_channels * o.depth_multiplier}, o.b_init);
}

Tensor DepthwiseConv2d::forward(const Tensor& x) {
  expect(x.dim() == 4 && x.size(3) == options_.in_channels,
         "expected input [N, H, W, " + std::to_string(options_.in_channels) + "], got " + x.shape().str());
  return options_.act(depthwise_conv2d(x, W, b, options_.options));
}

SeparableConv2d::SeparableConv2d(Options options, std::string name)
    : Layer("separableconv2d", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
  options_.filter_size = pair_of(std::move(options_.filter_size));
  expect(options_.filter_size.size() == 2, "filter_size must have 1 or 2 values");
}

SeparableConv2d::SeparableConv2d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options,
                                 int64_t depth_multiplier, std::string name, int64_t in_channels, bool use_bias,
                                 Initializer depthwise_init, Initializer pointwise_init, Initializer b_init)
    : SeparableConv2d(Options{.n_filter = n_filter,
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

void SeparableConv2d::build(const Shape& s) {
  Options& o = options_;
  expect(s.size() == 4, "expects input [N, H, W, C], got " + s.str());
  expect(o.in_channels < 0 || s[3] == o.in_channels,
         "was declared with " + std::to_string(o.in_channels) + " input channels but got input of shape " + s.str());
  o.in_channels = s[3];
  const int64_t mid = o.in_channels * o.depth_multiplier;
  depthwise_W = add_weight("depthwise_W", {o.filter_size[0], o.filter_size[1], o.in_channels, o.depth_multiplier},
                           o.depthwise_init);
  pointwise_W = add_weight("pointwise_W", {1, 1, mid, o.n_filter}, o.pointwise_init);
  if (o.use_bias) b = add_weight("b", {o.n_filter}, o.b_init);
}

Tensor SeparableConv2d::forward(const Tensor& x) {
  expect(x.dim() == 4 && x.size(3) == options_.in_channels,
         "expected input [N, H, W, " + std::to_string(options_.in_channels) + "], got " + x.shape().str());
  Tensor h = depthwise_conv2d(x, depthwise_W, Tensor(), options_.options);
  // The 1x1 convolution is a matrix product over the channels.
  return options_.act(linear(h, reshape(pointwise_W, {pointwise_W.size(2), options_.n_filter}), b));
}

static ConvOptions with_groups(ConvOptions options, int64_t groups) {
  options.groups = groups;
  return options;
}

STRATA_CONV_LAYER_CLASS(GroupConv2d, "groupconv2d", 2, false, conv2d)

GroupConv2d::GroupConv2d(int64_t n_filter, SpatialSizes filter_size, int64_t n_group, Activation act,
                         ConvOptions options, std::string name, int64_t in_channels, bool use_bias, Initializer w_init,
                         Initializer b_init)
    : GroupConv2d(Options{.n_filter = n_filter,
                          .filter_size = std::move(filter_size),
                          .act = std::move(act),
                          .options = with_groups(std::move(options), n_group),
                          .in_channels = in_channels,
                          .use_bias = use_bias,
                          .w_init = std::move(w_init),
                          .b_init = std::move(b_init)},
                  std::move(name)) {}

STRATA_DEFINE_OPTIONS(DepthwiseConv2dOptions, STRATA_DEPTHWISECONV2D_OPTIONS)
STRATA_DEFINE_OPTIONS(SeparableConv2dOptions, STRATA_SEPARABLECONV2D_OPTIONS)
// options.groups is n_group.
STRATA_DEFINE_OPTIONS(GroupConv2dOptions, STRATA_GROUPCONV2D_OPTIONS)
STRATA_LAYER("depthwiseconv2d", DepthwiseConv2d);
STRATA_LAYER("separableconv2d", SeparableConv2d);
STRATA_LAYER("groupconv2d", GroupConv2d);

}  // namespace strata::nn
