#include "strata/nn/shape_layers.hpp"

#include <algorithm>
#include <cmath>

#include "strata/core/factory.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

std::string list_str(const std::vector<int64_t>& v) { return Shape(v).str(); }

// Resizes one axis of x to `out` elements, sampling at half-pixel centres.
Tensor resize_axis(const Tensor& x, int axis, int64_t out, ResizeMethod method) {
  const int64_t in = x.size(axis);
  if (in == out) return x;
  const double scale = static_cast<double>(in) / static_cast<double>(out);
  if (method == ResizeMethod::nearest) {
    std::vector<int64_t> index(out);
    for (int64_t j = 0; j < out; ++j)
      index[j] = std::min<int64_t>(static_cast<int64_t>(std::floor((j + 0.5) * scale)), in - 1);
    return index_select(x, axis, from_vector(index));
  }
  // Bilinear: x[i0] * (1 - t) + x[i1] * t, the weights broadcast along `axis`.
  std::vector<int64_t> lo(out), hi(out);
  std::vector<double> t(out);
  for (int64_t j = 0; j < out; ++j) {
    double src = std::max((j + 0.5) * scale - 0.5, 0.0);
    lo[j] = std::min<int64_t>(static_cast<int64_t>(src), in - 1);
    hi[j] = std::min<int64_t>(lo[j] + 1, in - 1);
    t[j] = src - static_cast<double>(lo[j]);
  }
  Shape wshape(std::vector<int64_t>(x.dim(), 1));
  wshape[axis] = out;
  Tensor w = cast(from_vector(t, wshape), x.dtype());
  return index_select(x, axis, from_vector(lo)) * (1.0 - w) + index_select(x, axis, from_vector(hi)) * w;
}

std::vector<int64_t> pair_of(std::vector<int64_t> s) {
  if (s.size() == 1) s.push_back(s[0]);
  return s;
}

}  // namespace

Tensor resize2d(const Tensor& x, int64_t out_h, int64_t out_w, ResizeMethod method) {
  STRATA_CHECK(x.dim() == 4, "resize2d: expected x [N, H, W, C], got ", x.shape().str());
  STRATA_CHECK(out_h > 0 && out_w > 0, "resize2d: output size must be positive, got ", out_h, "x", out_w);
  STRATA_CHECK(is_floating(x.dtype()), "resize2d: expected a float32 or float64 tensor, got ", dtype_name(x.dtype()));
  return resize_axis(resize_axis(x, 1, out_h, method), 2, out_w, method);
}

Transpose::Transpose(std::vector<int64_t> perm, std::string name)
    : Layer("transpose", std::move(name)), perm_(std::move(perm)) {}

Tensor Transpose::forward(const Tensor& x) {
  expect(x.dim() == static_cast<int>(perm_.size()),
         "perm " + list_str(perm_) + " needs an input of rank " + str(perm_.size()) + ", got " + x.shape().str());
  return permute(x, Shape(perm_));
}

ExpandDims::ExpandDims(int64_t axis, std::string name) : Layer("expanddims", std::move(name)), axis_(axis) {}

Tensor ExpandDims::forward(const Tensor& x) {
  const int64_t axis = axis_ < 0 ? axis_ + x.dim() + 1 : axis_;
  expect(axis >= 0 && axis <= x.dim(), "axis " + str(axis_) + " is out of range for input " + x.shape().str());
  return unsqueeze(x, axis);
}

Tile::Tile(std::vector<int64_t> multiples, std::string name)
    : Layer("tile", std::move(name)), multiples_(std::move(multiples)) {
  for (int64_t m : multiples_) expect(m >= 0, "multiples must be non-negative, got " + list_str(multiples_));
}

Tensor Tile::forward(const Tensor& x) {
  expect(x.dim() == static_cast<int>(multiples_.size()), "multiples " + list_str(multiples_) +
                                                             " need an input of rank " + str(multiples_.size()) +
                                                             ", got " + x.shape().str());
  return tile(x, multiples_);
}

ZeroPad::ZeroPad(std::string kind, int rank, PadPairs padding, std::string name)
    : Layer(std::move(kind), std::move(name)), rank_(rank), padding_(std::move(padding)) {
  expect(static_cast<int>(padding_.size()) == rank,
         "padding needs " + str(rank) + " {before, after} pairs, got " + str(padding_.size()));
  for (auto [before, after] : padding_) expect(before >= 0 && after >= 0, "padding must be non-negative");
}

Tensor ZeroPad::forward(const Tensor& x) {
  static const char* layouts[] = {"", "[N, W, C]", "[N, H, W, C]", "[N, D, H, W, C]"};
  expect(x.dim() == rank_ + 2, std::string("expects input ") + layouts[rank_] + ", got " + x.shape().str());
  PadPairs pads = padding_;
  pads.push_back({0, 0});  // the channels
  return pad(x, pads);
}

UpSampling2d::UpSampling2d(std::vector<int64_t> scale, ResizeMethod method, std::string name)
    : Layer("upsampling2d", std::move(name)), scale_(pair_of(std::move(scale))), method_(method) {
  expect(scale_.size() == 2 && scale_[0] > 0 && scale_[1] > 0,
         "scale must be 1 or 2 positive values, got " + list_str(scale_));
}

Tensor UpSampling2d::forward(const Tensor& x) {
  expect(x.dim() == 4, "expects input [N, H, W, C], got " + x.shape().str());
  return resize2d(x, x.size(1) * scale_[0], x.size(2) * scale_[1], method_);
}

DownSampling2d::DownSampling2d(std::vector<int64_t> scale, ResizeMethod method, std::string name)
    : Layer("downsampling2d", std::move(name)), scale_(pair_of(std::move(scale))), method_(method) {
  expect(scale_.size() == 2 && scale_[0] > 0 && scale_[1] > 0,
         "scale must be 1 or 2 positive values, got " + list_str(scale_));
}

Tensor DownSampling2d::forward(const Tensor& x) {
  expect(x.dim() == 4 && x.size(1) >= scale_[0] && x.size(2) >= scale_[1],
         "expects input [N, H, W, C] with H >= " + str(scale_[0]) + " and W >= " + str(scale_[1]) + ", got " +
             x.shape().str());
  return resize2d(x, x.size(1) / scale_[0], x.size(2) / scale_[1], method_);
}

}  // namespace strata::nn
