// Pools where Strata's pooling layers do not fit (onnx_import_ops.cpp takes the common case):
// dilations, ceil_mode, count_include_pad with padding, SAME_LOWER, MaxPool's Indices output and
// MaxPool of integers (uint8, int32, int64: the layers pool floats), and LpPool; GlobalLpPool.
// A window pool is computed from its definition: the input padded (with the lowest value for
// max, zeros otherwise), one strided slice per kernel position, combined by max or sum; an
// average divides by the elements each window counts (a mask of ones pooled the same way).
// The window's numbers decide the output's shape, so they are the lengths of the function's
// int64 weights (k, s, d: kernel, stride, dilation; b, e: padding before and after, plus one;
// c: the padding after that count_include_pad counts, plus one), which a saved model keeps.
// MaxPool's Indices are a second function of the same weights and the storage order: each
// window's first largest element's position in the whole input (batch and channels counted),
// row-major or column-major over the spatial axes.
#include <algorithm>
#include <cmath>
#include <limits>

#include "strata/core/checked_size.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/functions.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
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

// Kernel position p's element of every window of the padded x: one strided slice per axis.
Tensor window_slice(const Tensor& x, Ws w, int64_t spatial, int64_t p) {
  Tensor y = x;
  for (int64_t i = spatial - 1; i >= 0; --i) {
    const Window win = window_of(w, static_cast<size_t>(i));
    const int64_t offset = (p % win.k) * win.d, n = x.size(i + 2) - (win.k - 1) * win.d;
    p /= win.k;
    const int64_t count = (n - 1) / win.s + 1;
    y = slice(y, i + 2, offset, offset + (count - 1) * win.s + 1, win.s);
  }
  return y;
}

int64_t window_positions(Ws w, int64_t spatial) {
  int64_t positions = 1;
  for (int64_t i = 0; i < spatial; ++i) positions *= window_of(w, static_cast<size_t>(i)).k;
  return positions;
}

// Every window's elements combined (max, or sum), the input padded with `value` first.
Tensor windows(Tensor x, Ws w, int64_t spatial, bool max, double value) {
  for (int64_t i = 0; i < spatial; ++i) {
    const Window win = window_of(w, static_cast<size_t>(i));
    x = pad_axis(x, i + 2, win.b, win.e, value);
  }
  Tensor out;
  for (int64_t p = 0; p < window_positions(w, spatial); ++p) {
    const Tensor y = window_slice(x, w, spatial, p);
    out = p == 0 ? y : max ? maximum(out, y) : out + y;
  }
  return out;
}

// The elements each window counts: the input's, and with count_include_pad the padding's up to
// c after (not what ceil_mode's last windows reach past it). A product of one mask per axis, so
// that a corner counts only where every axis counts it.
Tensor window_counts(const Tensor& x, Ws w, int64_t spatial, bool include_pad) {
  Tensor mask;
  for (int64_t i = 0; i < spatial; ++i) {
    const Window win = window_of(w, static_cast<size_t>(i));
    const int64_t n = x.size(i + 2);
    std::vector<double> v(static_cast<size_t>(win.b + n + win.e), 0.0);
    for (int64_t j = 0; j < static_cast<int64_t>(v.size()); ++j)
      v[static_cast<size_t>(j)] = (j >= win.b && j < win.b + n) || (include_pad && j < win.b + n + win.c) ? 1 : 0;
    std::vector<int64_t> shape(static_cast<size_t>(spatial + 2), 1);
    shape[static_cast<size_t>(i + 2)] = static_cast<int64_t>(v.size());
    const Tensor m = cast(from_vector(v, Shape(shape), x.device()), x.dtype());
    mask = i == 0 ? m : mask * m;
  }
  Tensor count;
  for (int64_t p = 0; p < window_positions(w, spatial); ++p) {
    const Tensor y = window_slice(mask, w, spatial, p);
    count = p == 0 ? y : count + y;
  }
  return count;
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
  if (x.is_meta()) return windows(x, w, spatial, false, 0);  // the shape alone
  const Tensor count = window_counts(x, w, spatial, kind == "avg_pad");
  return windows(x, w, spatial, false, 0) / count;
}

// Where each element of x [N, C, spatial...] is in the whole tensor, int64: (n·C + c)·S plus its
// spatial position, row-major or (ONNX's storage_order 1) column-major, S the spatial size.
Tensor flat_positions(const Tensor& x, int64_t spatial, bool column_major) {
  int64_t size = 1;
  for (int64_t i = 0; i < spatial; ++i) size *= x.size(i + 2);
  std::vector<int64_t> shape(static_cast<size_t>(x.dim()), 1);
  shape[0] = x.size(0), shape[1] = x.size(1);
  const auto steps = [&](int64_t n, int64_t step) {
    return arange(0, static_cast<double>(n * step), static_cast<double>(step), {kInt64, x.device()});
  };
  Tensor at = reshape(steps(x.size(0) * x.size(1), size), Shape(shape));
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t stride = 1;  // the elements one step along axis i skips
    for (int64_t j = column_major ? 0 : i + 1; j < (column_major ? i : spatial); ++j) stride *= x.size(j + 2);
    std::fill(shape.begin(), shape.end(), 1);
    shape[static_cast<size_t>(i + 2)] = x.size(i + 2);
    at = at + reshape(steps(x.size(i + 2), stride), Shape(shape));
  }
  return at;
}

// MaxPool's Indices: each window's first largest element (in the window's row-major order, as
// onnxruntime takes it) as its position in the whole input; padding never wins, even a tie.
Tensor max_indices(const Tensor& x, Ws w, int64_t spatial) {
  const bool column_major = w.at(6 * static_cast<size_t>(spatial)).item<double>() != 0;
  if (x.is_meta()) return Tensor::empty(windows(x, w, spatial, true, 0).shape(), kInt64, kMeta);
  Tensor v = x, at = flat_positions(x, spatial, column_major);
  for (int64_t i = 0; i < spatial; ++i) {
    const Window win = window_of(w, static_cast<size_t>(i));
    v = pad_axis(v, i + 2, win.b, win.e, lowest(x.dtype()));
    at = pad_axis(at, i + 2, win.b, win.e, -1);
  }
  Tensor best, index;
  for (int64_t p = 0; p < window_positions(w, spatial); ++p) {
    const Tensor y = window_slice(v, w, spatial, p), i = window_slice(at, w, spatial, p);
    if (p == 0) {
      best = y, index = i;
      continue;
    }
    const Tensor take = logical_and(i > -1.0, logical_or(gt(y, best), index < 0.0));
    best = where(take, y, best);
    index = where(take, i, index);
  }
  return index;
}

// MaxUnpool: zeros of the output's shape (its spatial sizes the lengths of the weights) with x's
// elements put at their indices' positions in the whole output, the last one where two meet (as
// onnxruntime and onnx's reference put them, one after the other); an index outside it is an Error.
Tensor max_unpool(const Tensor& x, const Tensor& at, Ws w, int64_t spatial) {
  STRATA_CHECK(x.dim() == spatial + 2 && static_cast<int64_t>(w.size()) == spatial, "onnx.max_unpool: input ",
               x.shape().str(), " is not ", spatial, "-d");
  std::vector<int64_t> shape{x.size(0), x.size(1)};
  for (const Tensor& t : w) shape.push_back(t.numel());
  if (x.is_meta()) return Tensor::empty(Shape(shape), x.dtype(), kMeta);
  STRATA_CHECK(at.shape() == x.shape() && is_index_dtype(at.dtype()), "onnx.max_unpool: indices ", at.shape().str(),
               " (", dtype_name(at.dtype()), ") are not int64 of the input's shape ", x.shape().str());
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<int64_t> from(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) from[static_cast<size_t>(i)] = i;
  const std::vector<int64_t> to = cast(at, kInt64).to_vector<int64_t>();
  for (size_t j = 0; j < to.size(); ++j) {
    STRATA_CHECK(to[j] >= 0 && to[j] < n, "onnx.max_unpool: index ", to[j], " is outside the output ",
                 Shape(shape).str());
    from[static_cast<size_t>(to[j])] = n + static_cast<int64_t>(j);
  }
  const Tensor values = concat({zeros(Shape{n}, {x.dtype(), x.device()}), reshape(x, Shape{x.numel()})}, 0);
  return reshape(index_select(values, 0, from_vector(from, Shape{n}, x.device())), Shape(shape));
}

struct PoolImportRegistration {
  PoolImportRegistration() {
    for (int64_t spatial = 1; spatial <= 3; ++spatial) {
      for (const std::string kind : kPoolKinds)
        nn::register_function("onnx.pool." + kind + "." + std::to_string(spatial),
                              [=](const Tensor& x, Ws w) { return pool(x, w, kind, spatial); });
      nn::register_function("onnx.pool.max_indices." + std::to_string(spatial),
                            [=](const Tensor& x, Ws w) { return max_indices(x, w, spatial); });
      nn::register_function("onnx.max_unpool." + std::to_string(spatial), [=](Ws xs, Ws w) {
        STRATA_CHECK(xs.size() == 2, "onnx.max_unpool: needs the values and their indices");
        return max_unpool(xs[0], xs[1], w, spatial);
      });
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

// MaxUnpool of values and indices (MaxPool's two outputs): the output's spatial sizes are
// (in - 1)·stride + kernel - pads, or those of a constant output_shape.
void max_unpool_op(Importer& im, const pb::NodeProto& node) {
  const nn::Symbol x = im.value(node, 0), at = im.value(node, 1);
  const Shape& shape = x.shape();
  const int64_t spatial = static_cast<int64_t>(shape.size()) - 2;
  require(spatial >= 1 && spatial <= 3, im, node, "needs a 1, 2 or 3-d input");
  require(at.shape() == shape, im, node,
          "indices " + at.shape().str() + " do not have the input's shape " + shape.str());
  const std::vector<int64_t> k = ints_attribute(node, "kernel_shape", {}),
                             s = ints_attribute(node, "strides", std::vector<int64_t>(static_cast<size_t>(spatial), 1)),
                             pads = ints_attribute(node, "pads",
                                                   std::vector<int64_t>(2 * static_cast<size_t>(spatial), 0));
  require(static_cast<int64_t>(k.size()) == spatial && static_cast<int64_t>(s.size()) == spatial &&
              static_cast<int64_t>(pads.size()) == 2 * spatial,
          im, node, "kernel_shape and strides need one value per spatial axis, pads two");
  std::vector<int64_t> out;
  for (int64_t i = 0; i < spatial; ++i) {
    const int64_t in = shape[i + 2];
    require(in >= 1 && k[i] >= 1 && k[i] <= 4096 && s[i] >= 1 && s[i] <= 4096 && pads[i] >= 0 && pads[i] <= 4096 &&
                pads[i + spatial] >= 0 && pads[i + spatial] <= 4096,
            im, node, "kernel_shape, strides and pads must be 1 (pads 0) to 4096, the spatial sizes fixed");
    out.push_back((in - 1) * s[i] + k[i] - pads[i] - pads[i + spatial]);
  }
  if (im.num_inputs(node) > 2) {
    const Tensor given = im.constant(node, 2);
    require(given.dtype() == kInt64 && given.dim() == 1 && given.numel() == spatial + 2, im, node,
            "output_shape must be an int64 shape of the input's rank");
    const std::vector<int64_t> v = given.to_vector<int64_t>();
    require(v[0] == shape[0] && v[1] == shape[1], im, node,
            "output_shape " + Shape(v).str() + " must keep the input's batch and channels " + shape.str() +
                " (a symbolic batch takes none)");
    out.assign(v.begin() + 2, v.end());
  }
  std::vector<int64_t> example{shape[1]};  // one example of the output, bounded as any tensor of a file
  for (int64_t n : out) {
    // (each size is the length of an int64 weight, which a saved model keeps)
    require(n >= 1 && n <= (int64_t{1} << 16), im, node, "the output's spatial sizes must be 1 to 65536");
    example.push_back(n);
  }
  checked_size(example, 8, im.what() + ": " + node_str(node) + ": the output");
  std::vector<std::pair<std::string, Tensor>> weights;
  for (size_t i = 0; i < out.size(); ++i) weights.push_back({"size" + std::to_string(i), zeros(Shape{out[i]}, kInt64)});
  im.set_output(node, im.function(node, "onnx.max_unpool." + std::to_string(spatial), {x, at}, weights));
}

}  // namespace

void pool_values(Importer& im, const pb::NodeProto& node) {
  const nn::Symbol x = im.value(node, 0);
  const Shape& shape = x.shape();
  const int64_t spatial = static_cast<int64_t>(shape.size()) - 2;
  require(spatial >= 1 && spatial <= 3, im, node, "needs a 1, 2 or 3-d input");
  const std::string op = node.op_type();
  require(node.output_size() == 1 || (op == "MaxPool" && node.output_size() == 2), im, node,
          "has more outputs than the operator's");
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
  const bool padding_alone_refused = op == "MaxPool" || (op == "AveragePool" && !include_pad);
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
      // onnxruntime rounds VALID's output length up under ceil_mode, onnx's reference does not
      require(!ceil_mode || in < ek || (in - ek) % s[i] == 0, im, node,
              "auto_pad VALID with ceil_mode where the windows do not end on the input's last element");
    } else if (auto_pad != "NOTSET") {  // SAME: the output has ceil(in / stride) elements
      out = (in + s[i] - 1) / s[i];
      // onnxruntime pads for the undilated window and refuses negative padding, which onnx's
      // reference takes (it crops): where they differ, so would the answers
      require(d[i] == 1 || k[i] == 1, im, node, "auto_pad " + auto_pad + " with dilations is not supported");
      const int64_t total = (out - 1) * s[i] + ek - in;
      require(total >= 0, im, node,
              "auto_pad " + auto_pad + " with a stride larger than the window needs negative padding");
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
    // A window of padding alone has no value (onnx's reference: NaN; onnxruntime: the lowest
    // float); LpPool's and a counted average's are 0.
    for (int64_t o = 0; o < out && padding_alone_refused; ++o) {
      const int64_t start = o * s[i] - b, first = start >= 0 ? 0 : (-start + d[i] - 1) / d[i];
      require(first < k[i] && start + first * d[i] < in, im, node,
              "output " + std::to_string(o) + " of axis " + std::to_string(i + 2) + " is a window of padding alone");
    }
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
  if (!node.output(0).empty())
    im.set_output(node, im.function(node, "onnx.pool." + kind + "." + std::to_string(spatial), {x}, weights));
  if (node.output_size() < 2 || node.output(1).empty()) return;
  // Indices: positions in the whole input (batch and channels too), row- or column-major.
  const int64_t order = int_attribute(node, "storage_order", 0);
  require(order == 0 || order == 1, im, node, "storage_order must be 0 or 1");
  weights.push_back({"order", scalar(static_cast<float>(order))});
  im.set_output(node, im.function(node, "onnx.pool.max_indices." + std::to_string(spatial), {x}, weights), 1);
}

std::optional<DType> Importer::declared_dtype(const std::string& value) const {
  if (!declared_read_) {
    for (const auto* list : {&graph_.input(), &graph_.value_info(), &graph_.output()})
      for (const pb::ValueInfoProto& v : *list)
        if (v.type().has_tensor_type()) declared_.emplace(v.name(), v.type().tensor_type().elem_type());
    for (const pb::NodeProto& n : graph_.node())  // a Cast's output has its target type
      if (n.op_type() == "Cast" && n.output_size() == 1)
        declared_.emplace(n.output(0), static_cast<int>(int_attribute(n, "to", 0)));
    declared_read_ = true;
  }
  const auto it = declared_.find(value);
  return it == declared_.end() ? std::nullopt : element_dtype(it->second);
}

const std::map<std::string, OpImport>& pool_imports() {
  static const std::map<std::string, OpImport> table = {
      {"LpPool", lp_pool}, {"GlobalLpPool", global_lp_pool}, {"MaxUnpool", max_unpool_op}};
  return table;
}

}  // namespace strata::onnx::detail
