#include "strata/nn/deformable.hpp"

#include "strata/core/factory.hpp"
#include "strata/nn/sampling.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/shape.hpp"
#include "conv_config.hpp"
#include "window_geometry.hpp"

namespace strata::nn {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

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

DeformableConv2d::DeformableConv2d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options,
                                   std::string name, int64_t in_channels, bool use_bias, Initializer w_init,
                                   Initializer b_init)
    : Layer("deformableconv2d", std::move(name)), n_filter_(n_filter), in_channels_(in_channels),
      filter_size_(std::move(filter_size)), act_(std::move(act)), options_(std::move(options)), use_bias_(use_bias),
      w_init_(std::move(w_init)), b_init_(std::move(b_init)) {
  expect(n_filter > 0, "n_filter must be positive, got " + str(n_filter));
  if (filter_size_.size() == 1) filter_size_.push_back(filter_size_[0]);
  expect(filter_size_.size() == 2, "filter_size must have 1 or 2 values");
  expect(options_.groups == 1, "groups must be 1, got " + str(options_.groups));
}

void DeformableConv2d::build(const Shape&) {
  expect(false, "takes two inputs {x, offset}, got one");
}

Tensor DeformableConv2d::forward(const Tensor&) {
  expect(false, "takes two inputs {x, offset}, got one");
  return {};
}

void DeformableConv2d::build_many(const std::vector<Shape>& s) {
  expect(s.size() == 2, "takes two inputs {x, offset}, got " + str(s.size()));
  expect(s[0].size() == 4, "expects x [N, H, W, C], got " + s[0].str());
  expect(in_channels_ < 0 || s[0][3] == in_channels_,
         "was declared with " + str(in_channels_) + " input channels but got x of shape " + s[0].str());
  in_channels_ = s[0][3];
  const int64_t taps = filter_size_[0] * filter_size_[1];
  W = add_weight("W", {1, 1, taps, in_channels_, n_filter_}, w_init_);
  if (use_bias_) b = add_weight("b", {n_filter_}, b_init_);
}

Tensor DeformableConv2d::forward_many(const std::vector<Tensor>& xs) {
  expect(xs.size() == 2, "takes two inputs {x, offset}, got " + str(xs.size()));
  const Tensor &x = xs[0], &offset = xs[1];
  expect(x.dim() == 4 && x.size(3) == in_channels_,
         "expected x [N, H, W, " + str(in_channels_) + "], got " + x.shape().str());
  Tensor w = reshape(W, {filter_size_[0], filter_size_[1], in_channels_, n_filter_});
  return act_(deform_conv2d(x, offset, w, b, options_));
}

void DeformableConv2d::get_config(nlohmann::json& c) const {
  c = detail::conv_config(n_filter_, filter_size_, act_, options_, in_channels_, use_bias_, *this);
}

STRATA_LAYER_CLASS("deformableconv2d", detail::conv_from_config<DeformableConv2d>);

}  // namespace strata::nn
