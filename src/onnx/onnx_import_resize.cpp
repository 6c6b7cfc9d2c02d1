// Resize (and, through onnx_import_legacy.cpp, Upsample and opset 10's Resize): nearest with its
// four rounding modes, linear and cubic (cubic_coeff_a, exclude_outside), the coordinate
// transformations half_pixel, half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric
// and tf_half_pixel_for_nn, scales or sizes (with keep_aspect_ratio_policy and axes) as
// constants. Interpolation is separable: each resized axis becomes, for each output position, a
// few source positions and their coefficients, computed here in float64 as onnx's reference
// (onnx/reference/ops/op_resize.py) computes them, and kept as the weights of a registered
// function that takes those source slices (index_select) and adds them up. Nearest takes one.
#include <algorithm>
#include <array>
#include <cmath>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/functions.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/shape.hpp"

#include "onnx_import.hpp"
#include "onnx_import_legacy.hpp"

namespace strata::onnx::detail {

namespace {

using Ws = const std::vector<Tensor>&;
constexpr int64_t kMaxResizeRank = 8, kMaxResizeSize = int64_t{1} << 24;
// The source positions planned at import, over all the resized axes (a 4096 x 4096 image plans
// 8192): a hostile file's scale of a million on one axis spent 0.5 s planning, and minutes under
// the fuzz target's sanitizers, before this bound.
constexpr int64_t kMaxResizePlan = int64_t{1} << 16;

// Each resized axis in increasing order (the bits of `axes`): weight "index" [out, taps] of
// source positions and, unless `nearest`, "coeff" [out, taps].
// A shape-only (meta) x gets the shape alone: a static model learns its shapes so when it is
// built, where computing would take time in proportion to the output (a hostile file's scale of
// a million took minutes under the fuzz target's sanitizers).
Tensor resize_axes(const Tensor& x, Ws w, int axes, bool nearest) {
  Tensor y = x;
  std::vector<int64_t> shape(x.shape().begin(), x.shape().end());
  size_t k = 0;
  for (int64_t a = 0; a < kMaxResizeRank; ++a) {
    if (!((axes >> a) & 1)) continue;
    STRATA_CHECK(a < y.dim(), "onnx.resize: no axis ", a, " in ", x.shape().str());
    const Tensor& index = w.at(k++);
    STRATA_CHECK(index.dim() == 2, "onnx.resize: positions must be [out, taps], got ", index.shape().str());
    if (x.is_meta()) {
      shape[static_cast<size_t>(a)] = index.size(0);
      k += nearest ? 0 : 1;
      continue;
    }
    if (nearest) {
      y = index_select(y, a, select(index, 1, 0));
      continue;
    }
    const Tensor coeff = cast(w.at(k++), y.dtype());
    std::vector<int64_t> along(static_cast<size_t>(y.dim()), 1);
    along[a] = index.size(0);
    Tensor sum;
    for (int64_t t = 0; t < index.size(1); ++t) {
      const Tensor term = index_select(y, a, select(index, 1, t)) * reshape(select(coeff, 1, t), Shape(along));
      sum = t == 0 ? term : sum + term;
    }
    y = sum;
  }
  return x.is_meta() ? Tensor::empty(Shape(shape), x.dtype(), kMeta) : y;
}

struct ResizeImportRegistration {
  ResizeImportRegistration() {
    for (int axes = 1; axes < (1 << kMaxResizeRank); ++axes)
      for (const bool nearest : {true, false})
        nn::register_function("onnx.resize." + std::to_string(axes) + (nearest ? ".nearest" : ".weighted"),
                              [=](const Tensor& x, Ws w) { return resize_axes(x, w, axes, nearest); });
  }
};
const ResizeImportRegistration resize_import_registration;

// The attributes' strings, each decided once while the node is read: the plan's loops below run
// once per output position and compare these.
enum class ResizeMode { nearest, linear, cubic };
enum class Coordinates {
  half_pixel,
  half_pixel_symmetric,
  pytorch_half_pixel,
  align_corners,
  asymmetric,
  tf_half_pixel_for_nn
};
enum class Rounding { round_prefer_floor, round_prefer_ceil, floor, ceil };

struct ResizeAttributes {
  ResizeMode mode;
  Coordinates coordinates;
  Rounding nearest_mode;
  double cubic_a;
  bool exclude_outside;
};

// The node's string attribute `name` (or `fallback`) as one of `names`' enumerators, in order;
// refused naming the value otherwise.
template <typename E, size_t N>
E enum_attribute(const Importer& im, const pb::NodeProto& node, const std::string& name, const std::string& fallback,
                 const std::array<const char*, N>& names) {
  const std::string value = string_attribute(node, name, fallback);
  for (size_t i = 0; i < N; ++i)
    if (value == names[i]) return static_cast<E>(i);
  require(false, im, node, name + " '" + value + "' is not supported");
  return E{};
}

// The coefficients of the `taps` source positions for a fraction `ratio` (onnx's reference); the
// entries past `taps` are 0. An array, not a vector: it is made once per output position.
std::array<double, 4> coefficients(const ResizeAttributes& r, double ratio) {
  if (r.mode == ResizeMode::nearest) {
    if (ratio == 1.0) return {0, 1};
    switch (r.nearest_mode) {
      case Rounding::round_prefer_floor:
        return {double(ratio <= 0.5), double(ratio > 0.5)};
      case Rounding::round_prefer_ceil:
        return {double(ratio < 0.5), double(ratio >= 0.5)};
      case Rounding::floor:
        return {1, 0};
      case Rounding::ceil:
        return {0, 1};
    }
  }
  if (r.mode == ResizeMode::linear) return {1 - ratio, ratio};
  const double A = r.cubic_a, s = ratio + 1, u = 1 - ratio, v = 2 - ratio;
  return {((A * s - 5 * A) * s + 8 * A) * s - 4 * A, ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1,
          ((A + 2) * u - (A + 3)) * u * u + 1, ((A * v - 5 * A) * v + 8 * A) * v - 4 * A};
}

// The source coordinate of output position y, computed in T (onnx's reference: float64;
// onnxruntime: float32).
template <typename T>
double source_coordinate(const ResizeAttributes& r, int64_t in, int64_t out, double scale_, int64_t i) {
  const T y = static_cast<T>(i), scale = static_cast<T>(scale_), n = static_cast<T>(in);
  const T width = scale * n;  // the output's length before rounding
  switch (r.coordinates) {
    case Coordinates::align_corners:
      return width == 1 ? 0 : y * (n - 1) / (width - 1);
    case Coordinates::asymmetric:
      return y / scale;
    case Coordinates::pytorch_half_pixel:
      return width == 1 ? T(-0.5) : (y + T(0.5)) / scale - T(0.5);
    case Coordinates::tf_half_pixel_for_nn:
      return (y + T(0.5)) / scale;
    case Coordinates::half_pixel_symmetric:
      return n / 2 * (1 - static_cast<T>(out) / width) + (y + T(0.5)) / scale - T(0.5);
    case Coordinates::half_pixel:
      break;
  }
  return (y + T(0.5)) / scale - T(0.5);
}

// The source positions ([out, taps], clamped into the axis) and their coefficients for one axis
// of `in` elements resized to `out` by `scale`.
std::pair<Tensor, Tensor> axis_plan(const Importer& im, const pb::NodeProto& node, const ResizeAttributes& r,
                                    int64_t in, int64_t out, double scale) {
  const bool nearest = r.mode == ResizeMode::nearest;
  const int64_t taps = r.mode == ResizeMode::cubic ? 4 : 2, pad = (taps + 1) / 2;
  std::vector<int64_t> index;
  std::vector<float> coeff;
  for (int64_t i = 0; i < out; ++i) {
    const double x = source_coordinate<double>(r, in, out, scale, i);
    if (nearest) {  // a tie that float32 and float64 break differently has two answers
      const double x32 = source_coordinate<float>(r, in, out, scale, i);
      const auto near = [&](double v) {
        return coefficients(r, v == std::floor(v) ? 1.0 : v - std::floor(v))[0] == 1 ? std::floor(v) : std::ceil(v);
      };
      require(near(x) == near(x32) || (std::clamp(near(x), 0.0, in - 1.0) == std::clamp(near(x32), 0.0, in - 1.0)), im,
              node,
              "output position " + std::to_string(i) +
                  " falls on a rounding tie that float32 and float64 break differently");
    }
    const double ratio = x == std::floor(x) ? 1.0 : x - std::floor(x);
    std::array<double, 4> c = coefficients(r, ratio);
    const double padded = x + static_cast<double>(pad), p = std::floor(padded);
    const int64_t start = static_cast<int64_t>(p) + (padded == p ? -taps / 2 : -taps / 2 + 1) - pad;
    if (r.exclude_outside) {
      double total = 0;
      for (int64_t t = 0; t < taps; ++t) {
        if (start + t < 0 || start + t >= in) c[t] = 0;
        total += c[t];
      }
      for (double& v : c) v /= total == 0 ? 1 : total;
    }
    for (int64_t t = 0; t < taps; ++t) {
      if (nearest && c[t] == 0) continue;  // one position of coefficient 1
      index.push_back(std::clamp<int64_t>(start + t, 0, in - 1));
      coeff.push_back(static_cast<float>(c[t]));
    }
  }
  const int64_t kept = nearest ? 1 : taps;
  return {from_vector(index, Shape{out, kept}), from_vector(coeff, Shape{out, kept})};
}

// A constant float32 or int64 input as doubles; empty when the input is absent or holds nothing.
// Constants include what the import folds (Shape -> Gather -> Concat ... of fixed sizes); a value
// known only when the model runs is refused, since a static model's shapes are fixed when declared.
std::vector<double> optional_constant(const Importer& im, const pb::NodeProto& node, int i) {
  if (static_cast<int>(im.num_inputs(node)) <= i || node.input(i).empty()) return {};
  require(im.is_constant(node, i), im, node,
          std::string(i == 2 ? "scales" : "sizes") + " input '" + node.input(i) +
              "' is computed when the model runs; only constant scales and sizes (initializers, Constant nodes, "
              "or shape arithmetic on fixed sizes) are supported");
  const Tensor t = im.constant(node, i);
  require(t.dtype() == kFloat32 || t.dtype() == kInt64, im, node,
          "input " + std::to_string(i) + " must be float or int64");
  return cast(t, kFloat64).to_vector<double>();
}

void resize_op(Importer& im, const pb::NodeProto& node) {
  const nn::Symbol x = im.value(node, 0);
  const Shape& shape = x.shape();
  const int64_t rank = static_cast<int64_t>(shape.size());
  const ResizeAttributes r{
      enum_attribute<ResizeMode>(im, node, "mode", "nearest", std::array{"nearest", "linear", "cubic"}),
      enum_attribute<Coordinates>(im, node, "coordinate_transformation_mode", "half_pixel",
                                  std::array{"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                                             "align_corners", "asymmetric", "tf_half_pixel_for_nn"}),
      enum_attribute<Rounding>(im, node, "nearest_mode", "round_prefer_floor",
                               std::array{"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}),
      float_attribute(node, "cubic_coeff_a", -0.75f), int_attribute(node, "exclude_outside", 0) != 0};
  const bool nearest = r.mode == ResizeMode::nearest;
  require(int_attribute(node, "antialias", 0) == 0, im, node, "antialias is not supported");
  require(!(nearest && r.exclude_outside), im, node, "exclude_outside is not supported with mode nearest");
  const std::string policy = string_attribute(node, "keep_aspect_ratio_policy", "stretch");
  require(policy == "stretch" || policy == "not_larger" || policy == "not_smaller", im, node,
          "keep_aspect_ratio_policy '" + policy + "' is not supported");
  require(rank >= 1 && rank <= kMaxResizeRank, im, node, "needs an input of rank 1 to 8");
  std::vector<int64_t> axes = ints_attribute(node, "axes", {});
  if (axes.empty())
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  for (int64_t& a : axes) {
    require(a >= -rank && a < rank, im, node, "axis " + std::to_string(a) + " is out of range");
    if (a < 0) a += rank;
  }
  const std::vector<double> scales = optional_constant(im, node, 2), sizes = optional_constant(im, node, 3);
  require(scales.empty() != sizes.empty(), im, node, "needs constant scales or sizes, one of them");
  if (find_attribute(node, kUpsampleNearest) != nullptr)  // an opset-9 Upsample of computed scales
    require(std::all_of(scales.begin(), scales.end(), [](double v) { return v >= 1; }), im, node,
            "Upsample's mode nearest needs scales of at least 1");
  require((scales.empty() ? sizes : scales).size() == axes.size(), im, node, "needs one scale or size per axis");
  std::vector<double> scale(static_cast<size_t>(rank), 1.0);
  std::vector<int64_t> out(shape.begin(), shape.end());
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t in = shape[axes[i]];
    const double v = scales.empty() ? sizes[i] : scales[i];
    if (in == -1) {  // the symbolic batch: kept as it is
      require(!scales.empty() && v == 1.0, im, node, "the symbolic batch axis can only keep its size (scale 1)");
      continue;
    }
    require(
        v > 0 && v * static_cast<double>(in) <= static_cast<double>(kMaxResizeSize) && (scales.empty() || v >= 1e-6),
        im, node, "scales and sizes must be positive and give at most 2^24 per axis");
    scale[axes[i]] = scales.empty() ? v / static_cast<double>(in) : v;
    out[axes[i]] = static_cast<int64_t>(scales.empty() ? v : v * static_cast<double>(in));
    // onnx's reference rounds the size from a float64 product, onnxruntime from a float32 one
    if (!scales.empty())
      require(static_cast<int64_t>(static_cast<float>(v) * static_cast<float>(in)) == out[axes[i]], im, node,
              "scale " + std::to_string(v) + " of axis " + std::to_string(axes[i]) +
                  " gives a size that float32 and float64 arithmetic round differently");
  }
  if (!sizes.empty() && policy != "stretch") {  // one scale for all the axes, the sizes rounded from it
    double s = scale[axes[0]];
    for (int64_t a : axes) s = policy == "not_larger" ? std::min(s, scale[a]) : std::max(s, scale[a]);
    for (int64_t a : axes) {
      scale[a] = s;
      out[a] = static_cast<int64_t>(s * static_cast<double>(shape[a]) + 0.5);
    }
  }
  int64_t planned = 0;
  for (int64_t a = 0; a < rank; ++a)
    if (shape[a] != -1 && !(std::abs(scale[a] - 1) <= 1e-9 && out[a] == shape[a])) planned += out[a];
  require(planned <= kMaxResizePlan, im, node,
          "the resized axes' output lengths add up to " + std::to_string(planned) + ", above the 2^16 planned");
  int mask = 0;
  std::vector<std::pair<std::string, Tensor>> weights;
  for (int64_t a = 0; a < rank; ++a) {
    require(out[a] >= 1 || shape[a] == -1, im, node, "axis " + std::to_string(a) + " would have no elements");
    if (shape[a] == -1 || (std::abs(scale[a] - 1) <= 1e-9 && out[a] == shape[a])) continue;  // unchanged
    // onnx's reference takes the unrounded output length (scale times size) where onnxruntime
    // takes the rounded one: where they differ, so would the answers.
    const double width = scale[a] * static_cast<double>(shape[a]);
    require(r.coordinates != Coordinates::align_corners || width == static_cast<double>(out[a]), im, node,
            "align_corners with a scale whose output length " + std::to_string(width) + " is not whole");
    require(r.coordinates != Coordinates::pytorch_half_pixel || (width == 1) == (out[a] == 1), im, node,
            "pytorch_half_pixel with a scale whose output length " + std::to_string(width) + " rounds to 1");
    require(!(r.coordinates == Coordinates::pytorch_half_pixel && r.mode == ResizeMode::cubic && out[a] == 1), im, node,
            "cubic pytorch_half_pixel to one element is not supported (onnx's reference and onnxruntime differ)");
    mask |= 1 << a;
    auto [index, coeff] = axis_plan(im, node, r, shape[a], out[a], scale[a]);
    weights.push_back({"index" + std::to_string(a), index});
    if (!nearest) weights.push_back({"coeff" + std::to_string(a), coeff});
  }
  if (mask == 0) return im.set_output(node, x);
  im.set_output(node, im.function(node, "onnx.resize." + std::to_string(mask) + (nearest ? ".nearest" : ".weighted"),
                                  {x}, weights));
}

}  // namespace

const std::map<std::string, OpImport>& resize_imports() {
  static const std::map<std::string, OpImport> table = {{"Resize", resize_op}};
  return table;
}

}  // namespace strata::onnx::detail
