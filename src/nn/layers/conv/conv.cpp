#include "strata/nn/layers/conv.hpp"

#include "strata/nn/option_table.hpp"

#include "fused_activation.hpp"

namespace strata::nn {

Conv2d::Conv2d(Options options, std::string name) : Layer("conv2d", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
  SpatialSizes& k = options_.filter_size;
  if (k.size() == 1) k.push_back(k[0]);
  expect(k.size() == 2, "filter_size must have 1 or 2 values");
}

Conv2d::Conv2d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options, std::string name,
               int64_t in_channels, bool use_bias, Initializer w_init, Initializer b_init)
    : Conv2d(Options{.n_filter = n_filter,
                     .filter_size = std::move(filter_size),
                     .act = std::move(act),
                     .options = std::move(options),
                     .in_channels = in_channels,
                     .use_bias = use_bias,
                     .w_init = std::move(w_init),
                     .b_init = std::move(b_init)},
             std::move(name)) {}

void Conv2d::build(const Shape& s) {
  Options& o = options_;
  expect(s.size() == 4, "expects NHWC input [batch, height, width, channels], got " + s.str());
  expect(o.in_channels < 0 || s[3] == o.in_channels,
         "was declared with " + std::to_string(o.in_channels) + " input channels but got input of shape " + s.str());
  o.in_channels = s[3];
  expect(o.options.groups > 0 && o.in_channels % o.options.groups == 0, "groups must divide the input channels");
  W = add_weight("W", {o.filter_size[0], o.filter_size[1], o.in_channels / o.options.groups, o.n_filter}, o.w_init);
  if (o.use_bias) b = add_weight("b", {o.n_filter}, o.b_init);
}

Tensor Conv2d::forward(const Tensor& x) {
  const int64_t in = options_.in_channels;
  expect(x.dim() == 4 && x.size(3) == in,
         "expected input of shape [N, H, W, " + std::to_string(in) + "], got " + x.shape().str());
  return detail::convolve_and_activate(conv2d, x, W, b, options_.options, options_.act);
}

STRATA_DEFINE_OPTIONS(Conv2dOptions, STRATA_CONV2D_OPTIONS)
STRATA_LAYER("conv2d", Conv2d);

}  // namespace strata::nn
