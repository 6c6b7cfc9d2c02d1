#include "strata/nn/conv_extras.hpp"

#include "strata/ops/linalg.hpp"
#include "strata/ops/shape.hpp"
#include "conv_config.hpp"

namespace strata::nn {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

// The parts of an explicit weight shape: filter sizes, in and out channels.
struct WeightShape {
  SpatialSizes filter;
  int64_t in, out;
};

WeightShape split_weight_shape(const char* kind, int rank, bool transposed, const Shape& shape) {
  STRATA_CHECK(static_cast<int>(shape.size()) == rank + 2, kind, ": shape must have ", rank + 2,
               " values (", rank, " filter sizes, ", transposed ? "out, in" : "in, out", "), got ", shape.str());
  for (int64_t s : shape) STRATA_CHECK(s > 0, kind, ": shape must be positive, got ", shape.str());
  WeightShape w{SpatialSizes(shape.begin(), shape.begin() + rank), shape[rank], shape[rank + 1]};
  if (transposed) std::swap(w.in, w.out);
  return w;
}

}  // namespace

DeConv1d::DeConv1d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options, std::string name,
                   int64_t in_channels, bool use_bias, Initializer w_init, Initializer b_init)
    : ConvLayer("deconv1d", 1, true, conv_transpose1d, n_filter, std::move(filter_size), std::move(act),
                std::move(options), std::move(name), in_channels, use_bias, std::move(w_init), std::move(b_init)) {}

Tensor depthwise_conv1d(const Tensor& x, const Tensor& w, const Tensor& b, ConvOptions options) {
  STRATA_CHECK(x.dim() == 3 && w.dim() == 3 && w.size(1) == x.size(2), "depthwise_conv1d: expected x [N, W, C] ",
               "and w [k, C, M], got ", x.shape().str(), " and ", w.shape().str());
  // One group per channel; [k, C, M] -> [k, 1, C * M] keeps output channel c * M + m.
  options.groups = x.size(2);
  return conv1d(x, reshape(w, {w.size(0), 1, w.size(1) * w.size(2)}), b, options);
}

SeparableConv1d::SeparableConv1d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options,
                                 int64_t depth_multiplier, std::string name, int64_t in_channels, bool use_bias,
                                 Initializer depthwise_init, Initializer pointwise_init, Initializer b_init)
    : Layer("separableconv1d", std::move(name)), n_filter_(n_filter), filter_size_(std::move(filter_size)),
      act_(std::move(act)), options_(std::move(options)), depth_multiplier_(depth_multiplier),
      in_channels_(in_channels), use_bias_(use_bias), depthwise_init_(std::move(depthwise_init)),
      pointwise_init_(std::move(pointwise_init)), b_init_(std::move(b_init)) {
  expect(n_filter > 0, "n_filter must be positive, got " + str(n_filter));
  expect(filter_size_.size() == 1, "filter_size must have 1 value, got " + str(filter_size_.size()));
  expect(depth_multiplier > 0, "depth_multiplier must be positive, got " + str(depth_multiplier));
}

void SeparableConv1d::build(const Shape& s) {
  expect(s.size() == 3, "expects input [N, W, C], got " + s.str());
  expect(in_channels_ < 0 || s[2] == in_channels_,
         "was declared with " + str(in_channels_) + " input channels but got input of shape " + s.str());
  in_channels_ = s[2];
  depthwise_W = add_weight("depthwise_W", {filter_size_[0], in_channels_, depth_multiplier_}, depthwise_init_);
  pointwise_W = add_weight("pointwise_W", {1, in_channels_ * depth_multiplier_, n_filter_}, pointwise_init_);
  if (use_bias_) b = add_weight("b", {n_filter_}, b_init_);
}

Tensor SeparableConv1d::forward(const Tensor& x) {
  expect(x.dim() == 3 && x.size(2) == in_channels_,
         "expected input [N, W, " + str(in_channels_) + "], got " + x.shape().str());
  Tensor h = depthwise_conv1d(x, depthwise_W, Tensor(), options_);
  return act_(linear(h, reshape(pointwise_W, {pointwise_W.size(1), n_filter_}), b));
}

// The explicit forms hand ConvLayer the sizes read off the weight shape.
#define STRATA_EXPLICIT_CONV(Class, kind, rank, transposed, op)                                                     \
  Class::Class(const Shape& shape, Activation act, ConvOptions options, std::string name, bool use_bias,            \
               Initializer w_init, Initializer b_init)                                                              \
      : ConvLayer(kind, rank, transposed, op, split_weight_shape(kind, rank, transposed, shape).out,                 \
                  split_weight_shape(kind, rank, transposed, shape).filter, std::move(act), std::move(options),      \
                  std::move(name), split_weight_shape(kind, rank, transposed, shape).in, use_bias, std::move(w_init), \
                  std::move(b_init)) {}

STRATA_EXPLICIT_CONV(Conv1dLayer, "conv1dlayer", 1, false, conv1d)
STRATA_EXPLICIT_CONV(Conv2dLayer, "conv2dlayer", 2, false, conv2d)
STRATA_EXPLICIT_CONV(Conv3dLayer, "conv3dlayer", 3, false, conv3d)
STRATA_EXPLICIT_CONV(DeConv2dLayer, "deconv2dlayer", 2, true, conv_transpose2d)
STRATA_EXPLICIT_CONV(DeConv3dLayer, "deconv3dlayer", 3, true, conv_transpose3d)
#undef STRATA_EXPLICIT_CONV

void SeparableConv1d::get_config(nlohmann::json& c) const {
  c = detail::conv_config(n_filter_, filter_size_, act_, options_, in_channels_, use_bias_, *this);
  c["depth_multiplier"] = depth_multiplier_;
}

namespace {

// The explicit forms' weight shape, from ConvLayer's config: [k..., in, out], or [k..., out, in]
// when transposed.
template <class L, bool transposed>
std::shared_ptr<Layer> explicit_conv_from_config(const nlohmann::json& c, const std::string& name) {
  const int64_t n_filter = c.at("n_filter").get<int64_t>(), in = c.at("in_channels").get<int64_t>();
  std::vector<int64_t> shape = dims_of(c.at("filter_size"));
  shape.push_back(transposed ? n_filter : in);
  shape.push_back(transposed ? in : n_filter);
  return std::make_shared<L>(Shape(shape), Activation(c.at("act").get<std::string>()),
                             conv_options_from(c.at("options")), name, c.at("use_bias").get<bool>());
}

}  // namespace

STRATA_LAYER_CLASS("deconv1d", detail::conv_from_config<DeConv1d>);
STRATA_LAYER_CLASS("separableconv1d", detail::separable_conv_from_config<SeparableConv1d>);
STRATA_LAYER_CLASS("conv1dlayer", explicit_conv_from_config<Conv1dLayer, false>);
STRATA_LAYER_CLASS("conv2dlayer", explicit_conv_from_config<Conv2dLayer, false>);
STRATA_LAYER_CLASS("conv3dlayer", explicit_conv_from_config<Conv3dLayer, false>);
STRATA_LAYER_CLASS("deconv2dlayer", explicit_conv_from_config<DeConv2dLayer, true>);
STRATA_LAYER_CLASS("deconv3dlayer", explicit_conv_from_config<DeConv3dLayer, true>);

}  // namespace strata::nn
