#include "strata/nn/layers/conv.hpp"

#include "strata/nn/option_table.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/shape.hpp"
#include "window_geometry.hpp"

namespace strata::nn {

Tensor unfold2d(const Tensor& x, const SpatialSizes& kernel, const ConvOptions& options) {
  STRATA_CHECK(x.dim() == 4, "unfold2d: expected x [N, H, W, C], got ", x.shape().str());
  const detail::AxisWindow wh = detail::axis_window(x.size(1), 0, kernel, options, "unfold2d");
  const detail::AxisWindow ww = detail::axis_window(x.size(2), 1, kernel, options, "unfold2d");
  Tensor padded = pad(x, {{wh.before, wh.after}, {ww.before, ww.after}, {0, 0}});
  // One strided slice per kernel tap, joined along the channels in (i, j, c) order.
  std::vector<Tensor> taps;
  for (int64_t i = 0; i < wh.kernel; ++i)
    for (int64_t j = 0; j < ww.kernel; ++j) {
      const int64_t y0 = i * wh.dilation, x0 = j * ww.dilation;
      Tensor t = slice(padded, 1, y0, y0 + (wh.out - 1) * wh.stride + 1, wh.stride);
      taps.push_back(slice(t, 2, x0, x0 + (ww.out - 1) * ww.stride + 1, ww.stride));
    }
  return concat(taps, 3);
}

Tensor fold2d(const Tensor& patches, const SpatialSizes& output_size, const SpatialSizes& kernel,
              const ConvOptions& options) {
  STRATA_CHECK(output_size.size() == 2 && output_size[0] > 0 && output_size[1] > 0,
               "fold2d: output_size must be {H, W}, got ", Shape(output_size).str());
  const detail::AxisWindow wh = detail::axis_window(output_size[0], 0, kernel, options, "fold2d");
  const detail::AxisWindow ww = detail::axis_window(output_size[1], 1, kernel, options, "fold2d");
  const int64_t taps = wh.kernel * ww.kernel;
  STRATA_CHECK(
      patches.dim() == 4 && patches.size(1) == wh.out && patches.size(2) == ww.out && patches.size(3) % taps == 0,
      "fold2d: expected patches [N, ", wh.out, ", ", ww.out, ", ", taps, " * C] for output_size ",
      Shape(output_size).str(), ", got ", patches.shape().str());
  const int64_t c = patches.size(3) / taps;
  const int64_t ph = output_size[0] + wh.before + wh.after, pw = output_size[1] + ww.before + ww.after;
  // Each tap's piece spread out by the stride (zeros between), then placed at its offset in the
  // padded canvas: the transpose of unfold2d's strided slices.
  auto spread = [](const Tensor& t, int64_t axis, int64_t stride) {
    if (stride == 1) return t;
    const int64_t len = t.size(axis);
    Tensor u = unsqueeze(t, axis + 1);
    std::vector<std::pair<int64_t, int64_t>> pads(u.dim() - axis, {0, 0});
    pads[1] = {0, stride - 1};
    Shape s = t.shape();
    s[axis] = len * stride;
    return slice(reshape(pad(u, pads), s), axis, 0, (len - 1) * stride + 1);
  };
  Tensor canvas;
  for (int64_t i = 0; i < wh.kernel; ++i)
    for (int64_t j = 0; j < ww.kernel; ++j) {
      const int64_t k = i * ww.kernel + j;
      Tensor piece = spread(spread(slice(patches, 3, k * c, (k + 1) * c), 1, wh.stride), 2, ww.stride);
      const int64_t y0 = i * wh.dilation, x0 = j * ww.dilation;
      Tensor placed = pad(piece, {{y0, ph - y0 - piece.size(1)}, {x0, pw - x0 - piece.size(2)}, {0, 0}});
      canvas = canvas.defined() ? canvas + placed : placed;
    }
  return slice(slice(canvas, 1, wh.before, wh.before + output_size[0]), 2, ww.before, ww.before + output_size[1]);
}

Unfold::Unfold(Options options, std::string name) : Layer("unfold", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

Unfold::Unfold(SpatialSizes kernel, ConvOptions options, std::string name)
    : Unfold(Options{.kernel = std::move(kernel), .options = std::move(options)}, std::move(name)) {}

Tensor Unfold::forward(const Tensor& x) {
  expect(x.dim() == 4, "expects input [N, H, W, C], got " + x.shape().str());
  return unfold2d(x, options_.kernel, options_.options);
}

Fold::Fold(Options options, std::string name) : Layer("fold", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

Fold::Fold(SpatialSizes output_size, SpatialSizes kernel, ConvOptions options, std::string name)
    : Fold(Options{.output_size = std::move(output_size), .kernel = std::move(kernel), .options = std::move(options)},
           std::move(name)) {}

Tensor Fold::forward(const Tensor& x) {
  expect(x.dim() == 4, "expects patches [N, OH, OW, kh * kw * C], got " + x.shape().str());
  return fold2d(x, options_.output_size, options_.kernel, options_.options);
}

STRATA_DEFINE_OPTIONS(UnfoldOptions, STRATA_UNFOLD_OPTIONS)
STRATA_DEFINE_OPTIONS(FoldOptions, STRATA_FOLD_OPTIONS)
STRATA_LAYER("unfold", Unfold);
STRATA_LAYER("fold", Fold);

}  // namespace strata::nn
