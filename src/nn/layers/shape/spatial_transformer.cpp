#include "strata/nn/layers/shape.hpp"

#include "strata/core/factory.hpp"
#include "strata/nn/option_table.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {
namespace {

// Normalised centres of `size` pixels: (2k + 1) / size - 1.
std::vector<double> centres(int64_t size) {
  std::vector<double> v(size);
  for (int64_t k = 0; k < size; ++k) v[k] = (2.0 * k + 1.0) / static_cast<double>(size) - 1.0;
  return v;
}

}  // namespace

Tensor affine_transform2d(const Tensor& x, const Tensor& theta, int64_t out_h, int64_t out_w) {
  STRATA_CHECK(x.dim() == 4, "affine_transform2d: expected x [N, H, W, C], got ", x.shape().str());
  STRATA_CHECK(out_h > 0 && out_w > 0, "affine_transform2d: output size must be positive, got ", out_h, "x", out_w);
  const int64_t n = x.size(0), h = x.size(1), w = x.size(2);
  STRATA_CHECK(theta.numel() == n * 6 && theta.size(0) == n, "affine_transform2d: expected theta [", n, ", 2, 3] or [",
               n, ", 6], got ", theta.shape().str());
  // The output grid as rows (x_t, y_t, 1) [M, 3]; source = grid · theta^T [N, M, 2].
  std::vector<double> grid;
  const std::vector<double> cy = centres(out_h), cx = centres(out_w);
  for (int64_t i = 0; i < out_h; ++i)
    for (int64_t j = 0; j < out_w; ++j) grid.insert(grid.end(), {cx[j], cy[i], 1.0});
  Tensor g = cast(from_vector(grid, {out_h * out_w, 3}), x.dtype());
  Tensor src = matmul(g, transpose(reshape(cast(theta, x.dtype()), {n, 2, 3}), 1, 2));  // [N, M, 2]
  // Normalised to pixel coordinates: ((s + 1) * size - 1) / 2.
  Tensor xs = (select(src, 2, 0) + 1.0) * (0.5 * static_cast<double>(w)) - 0.5;
  Tensor ys = (select(src, 2, 1) + 1.0) * (0.5 * static_cast<double>(h)) - 0.5;
  return reshape(bilinear_sample(x, ys, xs), {n, out_h, out_w, x.size(3)});
}

SpatialTransformer2dAffine::SpatialTransformer2dAffine(Options options, std::string name)
    : Layer("spatialtransformer2daffine", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
  expect(options_.out_size.size() == 2, "out_size must be two positive sizes, got " + Shape(options_.out_size).str());
}

SpatialTransformer2dAffine::SpatialTransformer2dAffine(std::vector<int64_t> out_size, int64_t in_channels,
                                                       std::string name)
    : SpatialTransformer2dAffine(Options{.out_size = std::move(out_size), .in_channels = in_channels},
                                 std::move(name)) {}

void SpatialTransformer2dAffine::build(const Shape&) { expect(false, "takes two inputs {theta_input, x}, got one"); }

Tensor SpatialTransformer2dAffine::forward(const Tensor&) {
  expect(false, "takes two inputs {theta_input, x}, got one");
  return {};
}

void SpatialTransformer2dAffine::build_many(const std::vector<Shape>& s) {
  expect(s.size() == 2, "takes two inputs {theta_input, x}, got " + std::to_string(s.size()));
  expect(s[0].size() >= 2, "expects theta_input [N, features...], got " + s[0].str());
  expect(s[1].size() == 4, "expects x [N, H, W, C], got " + s[1].str());
  int64_t features = 1;
  for (int i = 1; i < s[0].size(); ++i) features *= s[0][i];
  int64_t& in_channels = options_.in_channels;
  expect(in_channels < 0 || features == in_channels,
         "was declared with " + std::to_string(in_channels) + " theta features but got theta_input " + s[0].str());
  in_channels = features;
  W = add_weight("W", {in_channels, 6}, zeros_init());
  b = add_weight("b", {6}, [](const Shape&, Generator*) { return tensor({1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f}); });
}

Tensor SpatialTransformer2dAffine::forward_many(const std::vector<Tensor>& xs) {
  expect(xs.size() == 2, "takes two inputs {theta_input, x}, got " + std::to_string(xs.size()));
  Tensor features = flatten(xs[0], 1);
  expect(features.size(1) == options_.in_channels,
         "expected theta_input with " + std::to_string(options_.in_channels) + " features, got " + xs[0].shape().str());
  Tensor theta = strata::tanh(linear(features, W, b));
  return affine_transform2d(xs[1], theta, options_.out_size[0], options_.out_size[1]);
}

STRATA_DEFINE_OPTIONS(SpatialTransformer2dAffineOptions, STRATA_SPATIAL_TRANSFORMER2D_AFFINE_OPTIONS)
STRATA_LAYER("spatialtransformer2daffine", SpatialTransformer2dAffine);

}  // namespace strata::nn
