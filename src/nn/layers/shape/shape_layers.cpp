#include "strata/nn/layers/shape.hpp"

#include "strata/nn/option_table.hpp"

#include <algorithm>
#include <cmath>

#include "strata/core/factory.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {
namespace {

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

std::vector<std::vector<int64_t>> pad_lists(const PadPairs& padding) {
  std::vector<std::vector<int64_t>> out;
  for (auto [before, after] : padding) out.push_back({before, after});
  return out;
}

}  // namespace

Tensor resize2d(const Tensor& x, int64_t out_h, int64_t out_w, ResizeMethod method) {
  STRATA_CHECK(x.dim() == 4, "resize2d: expected x [N, H, W, C], got ", x.shape().str());
  STRATA_CHECK(out_h > 0 && out_w > 0, "resize2d: output size must be positive, got ", out_h, "x", out_w);
  STRATA_CHECK(is_floating(x.dtype()), "resize2d: expected a float32 or float64 tensor, got ", dtype_name(x.dtype()));
  return resize_axis(resize_axis(x, 1, out_h, method), 2, out_w, method);
}

Transpose::Transpose(Options options, std::string name)
    : Layer("transpose", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

Transpose::Transpose(std::vector<int64_t> perm, std::string name)
    : Transpose(Options{.perm = std::move(perm)}, std::move(name)) {}

Tensor Transpose::forward(const Tensor& x) {
  const std::vector<int64_t>& perm = options_.perm;
  expect(x.dim() == static_cast<int>(perm.size()), "perm " + list_str(perm) + " needs an input of rank " +
                                                       std::to_string(perm.size()) + ", got " + x.shape().str());
  return permute(x, Shape(perm));
}

ExpandDims::ExpandDims(Options options, std::string name)
    : Layer("expanddims", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

Tensor ExpandDims::forward(const Tensor& x) {
  const int64_t axis = options_.axis < 0 ? options_.axis + x.dim() + 1 : options_.axis;
  expect(axis >= 0 && axis <= x.dim(),
         "axis " + std::to_string(options_.axis) + " is out of range for input " + x.shape().str());
  return unsqueeze(x, axis);
}

Tile::Tile(Options options, std::string name) : Layer("tile", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

Tile::Tile(std::vector<int64_t> multiples, std::string name)
    : Tile(Options{.multiples = std::move(multiples)}, std::move(name)) {}

Tensor Tile::forward(const Tensor& x) {
  const std::vector<int64_t>& multiples = options_.multiples;
  expect(x.dim() == static_cast<int>(multiples.size()), "multiples " + list_str(multiples) + " need an input of rank " +
                                                            std::to_string(multiples.size()) + ", got " +
                                                            x.shape().str());
  return tile(x, multiples);
}

ZeroPad::ZeroPad(std::string kind, int rank, Options options, std::string name)
    : Layer(std::move(kind), std::move(name)), rank_(rank), options_(std::move(options)) {
  check_options(options_, *this);
  bool pairs = static_cast<int>(options_.padding.size()) == rank;
  for (const auto& p : options_.padding) pairs = pairs && p.size() == 2;
  expect(pairs, "padding needs " + std::to_string(rank) + " {before, after} pairs, got " +
                    OptionCodec<std::vector<std::vector<int64_t>>>::write(options_.padding).dump());
}

ZeroPad::ZeroPad(std::string kind, int rank, PadPairs padding, std::string name)
    : ZeroPad(std::move(kind), rank, Options{.padding = pad_lists(padding)}, std::move(name)) {}

Tensor ZeroPad::forward(const Tensor& x) {
  static const char* layouts[] = {"", "[N, W, C]", "[N, H, W, C]", "[N, D, H, W, C]"};
  expect(x.dim() == rank_ + 2, std::string("expects input ") + layouts[rank_] + ", got " + x.shape().str());
  PadPairs pads;
  for (const auto& p : options_.padding) pads.emplace_back(p[0], p[1]);
  pads.push_back({0, 0});  // the channels
  return pad(x, pads);
}

UpSampling2d::UpSampling2d(Options options, std::string name)
    : Layer("upsampling2d", std::move(name)), options_(std::move(options)) {
  options_.scale = pair_of(std::move(options_.scale));
  check_options(options_, *this);
  expect(options_.scale.size() == 2, "scale must be 1 or 2 positive values, got " + list_str(options_.scale));
}

Tensor UpSampling2d::forward(const Tensor& x) {
  expect(x.dim() == 4, "expects input [N, H, W, C], got " + x.shape().str());
  return resize2d(x, x.size(1) * options_.scale[0], x.size(2) * options_.scale[1], options_.method);
}

DownSampling2d::DownSampling2d(Options options, std::string name)
    : Layer("downsampling2d", std::move(name)), options_(std::move(options)) {
  options_.scale = pair_of(std::move(options_.scale));
  check_options(options_, *this);
  expect(options_.scale.size() == 2, "scale must be 1 or 2 positive values, got " + list_str(options_.scale));
}

Tensor DownSampling2d::forward(const Tensor& x) {
  const std::vector<int64_t>& scale = options_.scale;
  expect(x.dim() == 4 && x.size(1) >= scale[0] && x.size(2) >= scale[1],
         "expects input [N, H, W, C] with H >= " + std::to_string(scale[0]) + " and W >= " + std::to_string(scale[1]) +
             ", got " + x.shape().str());
  return resize2d(x, x.size(1) / scale[0], x.size(2) / scale[1], options_.method);
}

STRATA_DEFINE_OPTIONS(TransposeOptions, STRATA_TRANSPOSE_OPTIONS)
STRATA_DEFINE_OPTIONS(ExpandDimsOptions, STRATA_EXPAND_DIMS_OPTIONS)
STRATA_DEFINE_OPTIONS(TileOptions, STRATA_TILE_OPTIONS)
STRATA_DEFINE_OPTIONS(ZeroPadOptions, STRATA_ZERO_PAD_OPTIONS)
STRATA_ENUM_OPTION(ResizeMethod, {ResizeMethod::nearest, "nearest"}, {ResizeMethod::bilinear, "bilinear"});
STRATA_DEFINE_OPTIONS(Sampling2dOptions, STRATA_SAMPLING2D_OPTIONS)

STRATA_LAYER("transpose", Transpose);
STRATA_LAYER("expanddims", ExpandDims);
STRATA_LAYER("tile", Tile);
STRATA_LAYER("zeropad1d", ZeroPad1d);
STRATA_LAYER("zeropad2d", ZeroPad2d);
STRATA_LAYER("zeropad3d", ZeroPad3d);
STRATA_LAYER("upsampling2d", UpSampling2d);
STRATA_LAYER("downsampling2d", DownSampling2d);

}  // namespace strata::nn
