// Pools where Strata's pooling layers do not fit (onnx_import_ops.cpp takes the common case):
// dilations, ceil_mode, count_include_pad with padding, SAME_LOWER, and LpPool; GlobalLpPool.
// A window pool is computed from its definition: the input padded (with the lowest value for
// max, zeros otherwise), one strided slice per kernel position, combined by max or sum; an
// average divides by the elements each window counts (a ones tensor pooled the same way).
// The window's numbers decide the output's shape, so they are the lengths of the function's
// int64 weights (k, s, d: kernel, stride, dilation; b, e: padding before and after, plus one;
// c: the padding after that count_include_pad counts, plus one), which a saved model keeps.
#include <cmath>
#include <limits>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/functions.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

#include "onnx_import.hpp"

namespace strata::onnx::detail {

namespace {

using Ws = const std::vector<Tensor>&;
constexpr int64_t kMaxWindow = int64_t{1} << 16;  // kernel positions of one window
const char* const kPoolKinds[] = {"max", "avg", "avg_pad", "lp"};

struct Window {
  int64_t k, s, d, b, e, c;
};

// Axis i's window from the weights (six per axis, in order), checked against the input.
Window window_of(Ws w, size_t i) {
  const auto n = [&](size_t j) { return w.at(6 * i + j).numel(); };
  return {n(0), n(1), n(2), n(3) - 1, n(4) - 1, n(5) - 1};
}

// x padded on `axis` by `before` and `after` elements of `value`.
Tensor pad_axis(const Tensor& x, int64_t axis, int64_t before, int64_t after, double value) {
  std::vector<Tensor> parts;
  Shape s = x.shape();
  if (before > 0) parts.push_back(full((s[axis] = before, s), value, {x.dtype(), x.device()}));
  parts.push_back(x);
  s = x.shape();
  if (after > 0) parts.push_back(full((s[axis] = after, s), value, {x.dtype(), x.device()}));
  return parts.size() == 1 ? x : concat(parts, axis);
}

// Every window's elements combined (max, or sum), the input padded with `value` first; the
// padding after axis i is e (or, when `counted`, c, and zeros to e).
Tensor windows(Tensor x, Ws w, int64_t spatial, bool max, double value, bool counted = false) {
  int64_t positions = 1;
  for (int64_t i = 0; i < spatial; ++i) {
    const Window win = window_of(w, static_cast<size_t>(i));
    const int64_t after = counted ? win.c : win.e;
    x = pad_axis(x, i + 2, win.b, after, value);
    if (counted) x = pad_axis(x, i + 2, 0, win.e - win.c, 0);
    positions *= win.k;
  }
  Tensor out;
  for (int64_t p = 0; p < positions; ++p) {
    Tensor y = x;
    int64_t rest = p;
    for (int64_t i = spatial - 1; i >= 0; --i) {
      const Window win = window_of(w, static_cast<size_t>(i));
      const int64_t offset = (rest % win.k) * win.d, n = x.size(i + 2) - (win.k - 1) * win.d;
      rest /= win.k;
      const int64_t count = (n - 1) / win.s + 1;
      y = slice(y, i + 2, offset, offset + (count - 1) * win.s + 1, win.s);
    }
    out = p == 0 ? y : max ? maximum(out, y) : out + y;
  }
  return out;
}

double lowest(DType t) {
  if (t == kFloat32 || t == kFloat64) return -std::numeric_limits<double>::infinity();
  if (t == kInt64) return static_cast<double>(std::numeric_limits<int64_t>::lowest());
  if (t == kInt32) return std::numeric_limits<int32_t>::lowest();
  return 0;  // uint8
}

Tensor pool(const Tensor& x, Ws w, const std::string& kind, int64_t spatial) {
  STRATA_CHECK(x.dim() == spatial + 2 && static_cast<int64_t>(w.size()) >= 6 * spatial, "onnx.pool.", kind, ": input ",
               x.shape().str(), " is not ", spatial, "-d");
  if (kind == "max") return windows(x, w, spatial, true, lowest(x.dtype()));
  if (kind == "lp") {
    const double p = w.back().item<double>();
    return pow(windows(pow(abs(x), p), w, spatial, false, 0), 1 / p);
  }
  std::vector<int64_t> ones_shape(static_cast<size_t>(spatial + 2), 1);
  for (int64_t i = 0; i < spatial; ++i) ones_shape[i + 2] = x.size(i + 2);
  const Tensor count =
      windows(ones(Shape(ones_shape), {x.dtype(), x.device()}), w, spatial, false, kind == "avg_pad" ? 1 : 0,
              /*counted=*/kind == "avg_pad");
  return windows(x, w, spatial, false, 0) / count;
}

struct PoolImportRegistration {
  PoolImportRegistration() {
    for (int64_t spatial = 1; spatial <= 3; ++spatial) {
      for (const std::string kind : kPoolKinds)
        nn::register_function("onnx.pool." + kind + "." + std::to_string(spatial),
                              [=](const Tensor& x, Ws w) { return pool(x, w, kind, spatial); });
      Axes axes;
      for (int64_t i = 0; i < spatial; ++i) axes.push_back(i + 2);
      nn::register_function("onnx.global_lp_pool." + std::to_string(spatial), [=](const Tensor& x, Ws w) {
        const double p = w.at(0).item<double>();
        return pow(sum(pow(abs(x), p), axes, true), 1 / p);
      });
    }
  }
};
const PoolImportRegistration pool_import_registration;

int64_t lp_order(const Importer& im, const pb::NodeProto& node) {
  const int64_t p = int_attribute(node, "p", 2);
  require(p >= 1 && p <= 64, im, node, "p must be 1 to 64");
  return p;
}

void global_lp_pool(Importer& im, const pb::NodeProto& node) {
  const nn::Symbol x = im.value(node, 0);
  const int64_t spatial = static_cast<int64_t>(x.shape().size()) - 2;
  require(spatial >= 1 && spatial <= 3, im, node, "needs a 1, 2 or 3-d input");
  im.set_output(node, im.function(node, "onnx.global_lp_pool." + std::to_string(spatial), {x},
                                  {{"p", scalar(static_cast<float>(lp_order(im, node)))}}));
}

void lp_pool(Importer& im, const pb::NodeProto& node) { pool_values(im, node); }

}  // namespace

void pool_values(Importer& im, const pb::NodeProto& node) {
  const nn::Symbol x = im.value(node, 0);
  const Shape& shape = x.shape();
  const int64_t spatial = static_cast<int64_t>(shape.size()) - 2;
  require(spatial >= 1 && spatial <= 3, im, node, "needs a 1, 2 or 3-d input");
  require(node.output_size() == 1, im, node, "MaxPool's indices output is not supported");
  const std::string op = node.op_type();
  const auto per_axis = [&](const std::string& name, int64_t fallback, int64_t lo) {
    const std::vector<int64_t> v =
        ints_attribute(node, name, std::vector<int64_t>(static_cast<size_t>(spatial), fallback));
    require(static_cast<int64_t>(v.size()) == spatial, im, node, name + " must have one value per spatial axis");
    for (int64_t n : v)
      require(n >= lo && n <= 4096, im, node, name + " values must be between " + std::to_string(lo) + " and 4096");
    return v;
  };
  const std::vector<int64_t> k = per_axis("kernel_shape", 0, 1), s = per_axis("strides", 1, 1),
                             d = per_axis("dilations", 1, 1);
  std::vector<int64_t> pads = ints_attribute(node, "pads", std::vector<int64_t>(static_cast<size_t>(2 * spatial), 0));
  require(static_cast<int64_t>(pads.size()) == 2 * spatial, im, node, "pads must have 2 values per spatial axis");
  for (int64_t p : pads) require(p >= 0 && p <= 4096, im, node, "pads must be between 0 and 4096");
  const std::string auto_pad = string_attribute(node, "auto_pad", "NOTSET");
  require(auto_pad == "NOTSET" || auto_pad == "VALID" || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER", im, node,
          "auto_pad '" + auto_pad + "' is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER");
  const bool ceil_mode = int_attribute(node, "ceil_mode", 0) != 0;
  const bool include_pad = op == "AveragePool" && int_attribute(node, "count_include_pad", 0) != 0;
  std::vector<std::pair<std::string, Tensor>> weights;
  int64_t positions = 1;
  for (int64_t i = 0; i < spatial; ++i) {
    const int64_t in = shape[i + 2], ek = d[i] * (k[i] - 1) + 1;
    require(in >= 1, im, node, "needs fixed spatial sizes");
    positions *= k[i];
    int64_t b = pads[i], e = pads[i + spatial], out = 0;
    if (auto_pad == "VALID") {
      b = e = 0;
      out = in >= ek ? (in - ek) / s[i] + 1 : 0;
    } else if (auto_pad != "NOTSET") {  // SAME: the output has ceil(in / stride) elements
      out = (in + s[i] - 1) / s[i];
      const int64_t total = std::max<int64_t>((out - 1) * s[i] + ek - in, 0);
      b = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      e = total - b;
    } else {
      const int64_t span = in + b + e - ek;
      require(span >= 0, im, node, "the window is larger than the padded input");
      out = (ceil_mode ? (span + s[i] - 1) / s[i] : span / s[i]) + 1;
      // A window starting in the right padding is dropped (opset 22's rule; earlier opsets are
      // silent, and onnxruntime follows it).
      if (ceil_mode && (out - 1) * s[i] >= in + b) --out;
    }
    require(out >= 1, im, node, "the output would have no elements");
    const int64_t extent = (out - 1) * s[i] + ek - in - b;  // the padding after that the windows reach
    const int64_t pad_after = std::max(extent, int64_t{0});
    require(pad_after <= 4096 + 4096, im, node, "the padding is too large");
    const std::string a = std::to_string(i);
    for (const auto& [name, n] : std::vector<std::pair<std::string, int64_t>>{{"k", k[i]},
                                                                              {"s", s[i]},
                                                                              {"d", d[i]},
                                                                              {"b", b + 1},
                                                                              {"e", pad_after + 1},
                                                                              {"c", std::min(e, pad_after) + 1}})
      weights.push_back({name + a, zeros(Shape{n}, kInt64)});
  }
  require(positions <= kMaxWindow, im, node, "a window of more than 65536 elements is not supported");
  std::string kind = op == "MaxPool" ? "max" : op == "LpPool" ? "lp" : include_pad ? "avg_pad" : "avg";
  if (kind == "lp") weights.push_back({"p", scalar(static_cast<float>(lp_order(im, node)))});
  im.set_output(node, im.function(node, "onnx.pool." + kind + "." + std::to_string(spatial), {x}, weights));
}

const std::map<std::string, OpImport>& pool_imports() {
  static const std::map<std::string, OpImport> table = {{"LpPool", lp_pool}, {"GlobalLpPool", global_lp_pool}};
  return table;
}

}  // namespace strata::onnx::detail
