#include "strata/nn/shape_layers.hpp"

#include "strata/nn/layer_config.hpp"

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

using nlohmann::json;


void Transpose::get_config(json& c) const { c = {{"perm", perm_}}; }
void ExpandDims::get_config(json& c) const { c = {{"axis", axis_}}; }
void Tile::get_config(json& c) const { c = {{"multiples", multiples_}}; }
void ZeroPad::get_config(json& c) const { c = {{"padding", padding_}}; }
void UpSampling2d::get_config(json& c) const {
  c = {{"scale", scale_}, {"method", method_ == ResizeMethod::nearest ? "nearest" : "bilinear"}};
}
void DownSampling2d::get_config(json& c) const {
  c = {{"scale", scale_}, {"method", method_ == ResizeMethod::nearest ? "nearest" : "bilinear"}};
}

ResizeMethod resize_method_from(const json& c) {
  const std::string m = c.get<std::string>();
  STRATA_CHECK(m == "nearest" || m == "bilinear", "method: expected nearest or bilinear, got '", m, "'");
  return m == "nearest" ? ResizeMethod::nearest : ResizeMethod::bilinear;
}

template <class L>
std::shared_ptr<Layer> zero_pad_from_config(const json& c, const std::string& name) {
  return std::make_shared<L>(c.at("padding").get<PadPairs>(), name);
}

STRATA_LAYER_CLASS("transpose", [](const json& c, const std::string& name) {
  return std::make_shared<Transpose>(dims_of(c.at("perm")), name);
});
STRATA_LAYER_CLASS("expanddims", [](const json& c, const std::string& name) {
  return std::make_shared<ExpandDims>(c.at("axis").get<int64_t>(), name);
});
STRATA_LAYER_CLASS("tile", [](const json& c, const std::string& name) {
  return std::make_shared<Tile>(dims_of(c.at("multiples")), name);
});
STRATA_LAYER_CLASS("zeropad1d", zero_pad_from_config<ZeroPad1d>);
STRATA_LAYER_CLASS("zeropad2d", zero_pad_from_config<ZeroPad2d>);
STRATA_LAYER_CLASS("zeropad3d", zero_pad_from_config<ZeroPad3d>);
STRATA_LAYER_CLASS("upsampling2d", [](const json& c, const std::string& name) {
  return std::make_shared<UpSampling2d>(dims_of(c.at("scale")), resize_method_from(c.at("method")), name);
});
STRATA_LAYER_CLASS("downsampling2d", [](const json& c, const std::string& name) {
  return std::make_shared<DownSampling2d>(dims_of(c.at("scale")), resize_method_from(c.at("method")), name);
});

}  // namespace strata::nn
