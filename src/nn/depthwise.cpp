#include "strata/nn/depthwise.hpp"

#include "strata/ops/linalg.hpp"
#include "strata/ops/shape.hpp"
#include "conv_config.hpp"

namespace strata::nn {
namespace {

SpatialSizes pair_of(SpatialSizes s) {
  if (s.size() == 1) s.push_back(s[0]);
  return s;
}

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

Tensor depthwise_conv2d(const Tensor& x, const Tensor& w, const Tensor& b, ConvOptions options) {
  STRATA_CHECK(x.dim() == 4 && w.dim() == 4 && w.size(2) == x.size(3), "depthwise_conv2d: expected x [N, H, W, C] ",
               "and w [kh, kw, C, M], got ", x.shape().str(), " and ", w.shape().str());
  // A grouped convolution with one group per channel: [kh, kw, C, M] -> [kh, kw, 1, C * M] keeps
  // output channel c * M + m, TensorFlow's order.
  options.groups = x.size(3);
  return conv2d(x, reshape(w, {w.size(0), w.size(1), 1, w.size(2) * w.size(3)}), b, options);
}

DepthwiseConv2d::DepthwiseConv2d(SpatialSizes filter_size, Activation act, ConvOptions options,
                                 int64_t depth_multiplier, std::string name, int64_t in_channels, bool use_bias,
                                 Initializer w_init, Initializer b_init)
    : Layer("depthwiseconv2d", std::move(name)), filter_size_(pair_of(std::move(filter_size))), act_(std::move(act)),
      options_(std::move(options)), depth_multiplier_(depth_multiplier), in_channels_(in_channels), use_bias_(use_bias),
      w_init_(std::move(w_init)), b_init_(std::move(b_init)) {
  expect(filter_size_.size() == 2, "filter_size must have 1 or 2 values");
  expect(depth_multiplier > 0, "depth_multiplier must be positive, got " + str(depth_multiplier));
}

void DepthwiseConv2d::build(const Shape& s) {
  expect(s.size() == 4, "expects input [N, H, W, C], got " + s.str());
  expect(in_channels_ < 0 || s[3] == in_channels_,
         "was declared with " + str(in_channels_) + " input channels but got input of shape " + s.str());
  in_channels_ = s[3];
  W = add_weight("W", {filter_size_[0], filter_size_[1], in_channels_, depth_multiplier_}, w_init_);
  if (use_bias_) b = add_weight("b", {in_channels_ * depth_multiplier_}, b_init_);
}

Tensor DepthwiseConv2d::forward(const Tensor& x) {
  expect(x.dim() == 4 && x.size(3) == in_channels_,
         "expected input [N, H, W, " + str(in_channels_) + "], got " + x.shape().str());
  return act_(depthwise_conv2d(x, W, b, options_));
}

SeparableConv2d::SeparableConv2d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options,
                                 int64_t depth_multiplier, std::string name, int64_t in_channels, bool use_bias,
                                 Initializer depthwise_init, Initializer pointwise_init, Initializer b_init)
    : Layer("separableconv2d", std::move(name)), n_filter_(n_filter), filter_size_(pair_of(std::move(filter_size))),
      act_(std::move(act)), options_(std::move(options)), depth_multiplier_(depth_multiplier),
      in_channels_(in_channels), use_bias_(use_bias), depthwise_init_(std::move(depthwise_init)),
      pointwise_init_(std::move(pointwise_init)), b_init_(std::move(b_init)) {
  expect(n_filter > 0, "n_filter must be positive, got " + str(n_filter));
  expect(filter_size_.size() == 2, "filter_size must have 1 or 2 values");
  expect(depth_multiplier > 0, "depth_multiplier must be positive, got " + str(depth_multiplier));
}

void SeparableConv2d::build(const Shape& s) {
  expect(s.size() == 4, "expects input [N, H, W, C], got " + s.str());
  expect(in_channels_ < 0 || s[3] == in_channels_,
         "was declared with " + str(in_channels_) + " input channels but got input of shape " + s.str());
  in_channels_ = s[3];
  const int64_t mid = in_channels_ * depth_multiplier_;
  depthwise_W =
      add_weight("depthwise_W", {filter_size_[0], filter_size_[1], in_channels_, depth_multiplier_}, depthwise_init_);
  pointwise_W = add_weight("pointwise_W", {1, 1, mid, n_filter_}, pointwise_init_);
  if (use_bias_) b = add_weight("b", {n_filter_}, b_init_);
}

Tensor SeparableConv2d::forward(const Tensor& x) {
  expect(x.dim() == 4 && x.size(3) == in_channels_,
         "expected input [N, H, W, " + str(in_channels_) + "], got " + x.shape().str());
  Tensor h = depthwise_conv2d(x, depthwise_W, Tensor(), options_);
  // The 1x1 convolution is a matrix product over the channels.
  return act_(linear(h, reshape(pointwise_W, {pointwise_W.size(2), n_filter_}), b));
}

static ConvOptions with_groups(ConvOptions options, int64_t groups) {
  options.groups = groups;
  return options;
}

GroupConv2d::GroupConv2d(int64_t n_filter, SpatialSizes filter_size, int64_t n_group, Activation act,
                         ConvOptions options, std::string name, int64_t in_channels, bool use_bias, Initializer w_init,
                         Initializer b_init)
    : ConvLayer("groupconv2d", 2, false, conv2d, n_filter, std::move(filter_size), std::move(act),
                with_groups(std::move(options), n_group), std::move(name), in_channels, use_bias, std::move(w_init),
                std::move(b_init)) {}

using nlohmann::json;


void DepthwiseConv2d::get_config(json& c) const {
  c = {{"filter_size", filter_size_}, {"act", activation_name(act_, *this)}, {"options", conv_options_config(options_)},
       {"depth_multiplier", depth_multiplier_}, {"in_channels", in_channels_}, {"use_bias", use_bias_}};
}

STRATA_LAYER_CLASS("depthwiseconv2d", [](const json& c, const std::string& name) {
  return std::make_shared<DepthwiseConv2d>(dims_of(c.at("filter_size")), Activation(c.at("act").get<std::string>()),
                                           conv_options_from(c.at("options")), c.at("depth_multiplier").get<int64_t>(),
                                           name, c.at("in_channels").get<int64_t>(), c.at("use_bias").get<bool>());
});

void SeparableConv2d::get_config(json& c) const {
  c = detail::conv_config(n_filter_, filter_size_, act_, options_, in_channels_, use_bias_, *this);
  c["depth_multiplier"] = depth_multiplier_;
}

STRATA_LAYER_CLASS("separableconv2d", detail::separable_conv_from_config<SeparableConv2d>);

// The config's options already carry n_group as their groups.
STRATA_LAYER_CLASS("groupconv2d", [](const json& c, const std::string& name) {
  const ConvOptions options = conv_options_from(c.at("options"));
  return std::make_shared<GroupConv2d>(c.at("n_filter").get<int64_t>(), dims_of(c.at("filter_size")), options.groups,
                                       Activation(c.at("act").get<std::string>()), options, name,
                                       c.at("in_channels").get<int64_t>(), c.at("use_bias").get<bool>());
});

}  // namespace strata::nn
