#include "strata/nn/layers/conv.hpp"

#include "strata/core/factory.hpp"
#include "strata/nn/layers/shape.hpp"
#include "strata/nn/option_table.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/shape.hpp"
#include "window_geometry.hpp"

namespace strata::nn {
namespace {}  // namespace

Tensor deform_conv2d(const Tensor& x, const Tensor& offset, const Tensor& w, const Tensor& b,
                     const ConvOptions& options) {
  STRATA_CHECK(x.dim() == 4 && w.dim() == 4 && w.size(2) == x.size(3), "deform_conv2d: expected x [N, H, W, C] and ",
               "w [kh, kw, C, O], got ", x.shape().str(), " and ", w.shape().str());
  const SpatialSizes kernel{w.size(0), w.size(1)};
  const detail::AxisWindow wh = detail::axis_window(x.size(1), 0, kernel, options, "deform_conv2d");
  const detail::AxisWindow ww = detail::axis_window(x.size(2), 1, kernel, options, "deform_conv2d");
  const int64_t n = x.size(0), c = x.size(3), taps = wh.kernel * ww.kernel;
  STRATA_CHECK(offset.dim() == 4 && offset.size(0) == n && offset.size(1) == wh.out && offset.size(2) == ww.out &&
                   offset.size(3) == 2 * taps,
               "deform_conv2d: expected offset [", n, ", ", wh.out, ", ", ww.out, ", ", 2 * taps, "] for x ",
               x.shape().str(), " and a ", wh.kernel, "x", ww.kernel, " kernel, got ", offset.shape().str());
  // The regular tap positions [OH, OW, taps], then the learned offsets added.
  std::vector<double> base_y(wh.out * ww.out * taps), base_x(base_y.size());
  for (int64_t oy = 0, e = 0; oy < wh.out; ++oy)
    for (int64_t ox = 0; ox < ww.out; ++ox)
      for (int64_t i = 0; i < wh.kernel; ++i)
        for (int64_t j = 0; j < ww.kernel; ++j, ++e) {
          base_y[e] = static_cast<double>(oy * wh.stride - wh.before + i * wh.dilation);
          base_x[e] = static_cast<double>(ox * ww.stride - ww.before + j * ww.dilation);
        }
  const Shape grid{wh.out, ww.out, taps};
  Tensor pairs = reshape(offset, {n, wh.out, ww.out, taps, 2});
  Tensor ys = cast(from_vector(base_y, grid), x.dtype()) + select(pairs, 4, 0);
  Tensor xs = cast(from_vector(base_x, grid), x.dtype()) + select(pairs, 4, 1);
  const int64_t m = wh.out * ww.out * taps;
  Tensor sampled = bilinear_sample(x, reshape(ys, {n, m}), reshape(xs, {n, m}));  // [N, M, C]
  // [N, OH, OW, taps * C] in (i, j, c) order times w [kh * kw * C, O]: the convolution's sum.
  Tensor patches = reshape(sampled, {n, wh.out, ww.out, taps * c});
  return linear(patches, reshape(w, {taps * c, w.size(3)}), b);
}

DeformableConv2d::DeformableConv2d(Options options, std::string name)
    : Layer("deformableconv2d", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
  SpatialSizes& k = options_.filter_size;
  if (k.size() == 1) k.push_back(k[0]);
  expect(k.size() == 2, "filter_size must have 1 or 2 values");
  expect(options_.options.groups == 1, "groups must be 1, got " + std::to_string(options_.options.groups));
}

DeformableConv2d::DeformableConv2d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options,
                                   std::string name, int64_t in_channels, bool use_bias, Initializer w_init,
                                   Initializer b_init)
    : DeformableConv2d(Options{.n_filter = n_filter,
                               .filter_size = std::move(filter_size),
                               .act = std::move(act),
                               .options = std::move(options),
                               .in_channels = in_channels,
                               .use_bias = use_bias,
                               .w_init = std::move(w_init),
                               .b_init = std::move(b_init)},
                       std::move(name)) {}

void DeformableConv2d::build(const Shape&) { expect(false, "takes two inputs {x, offset}, got one"); }

Tensor DeformableConv2d::forward(const Tensor&) {
  expect(false, "takes two inputs {x, offset}, got one");
  return {};
}

void DeformableConv2d::build_many(const std::vector<Shape>& s) {
  Options& o = options_;
  expect(s.size() == 2, "takes two inputs {x, offset}, got " + std::to_string(s.size()));
  expect(s[0].size() == 4, "expects x [N, H, W, C], got " + s[0].str());
  expect(o.in_channels < 0 || s[0][3] == o.in_channels,
         "was declared with " + std::to_string(o.in_channels) + " input channels but got x of shape " + s[0].str());
  o.in_channels = s[0][3];
  const int64_t taps = o.filter_size[0] * o.filter_size[1];
  W = add_weight("W", {1, 1, taps, o.in_channels, o.n_filter}, o.w_init);
  if (o.use_bias) b = add_weight("b", {o.n_filter}, o.b_init);
}

Tensor DeformableConv2d::forward_many(const std::vector<Tensor>& xs) {
  const Options& o = options_;
  expect(xs.size() == 2, "takes two inputs {x, offset}, got " + std::to_string(xs.size()));
  const Tensor &x = xs[0], &offset = xs[1];
  expect(x.dim() == 4 && x.size(3) == o.in_channels,
         "expected x [N, H, W, " + std::to_string(o.in_channels) + "], got " + x.shape().str());
  Tensor w = reshape(W, {o.filter_size[0], o.filter_size[1], o.in_channels, o.n_filter});
  return o.act(deform_conv2d(x, offset, w, b, o.options));
}

STRATA_DEFINE_OPTIONS(DeformableConv2dOptions, STRATA_DEFORMABLECONV2D_OPTIONS)
STRATA_LAYER("deformableconv2d", DeformableConv2d);

}  // namespace strata::nn
