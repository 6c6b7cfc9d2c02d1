// Reductions along axes: every Reduce* (axes as an attribute or a constant input, keepdims,
// noop_with_empty_axes), ArgMax/ArgMin (keepdims, select_last_index), CumSum (exclusive,
// reverse) and TopK. What decides the output's shape is in the function's name (the axis,
// keepdims) or in a weight's shape (the reduced axes as a bit mask, TopK's k), as Slice's length
// is (onnx_import_select.cpp), so that a saved model declares the same shapes when it loads.
#include <algorithm>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/functions.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"
#include "strata/ops/sort.hpp"

#include "onnx_import.hpp"

namespace strata::onnx::detail {

namespace {

using nn::Symbol;
using Ws = const std::vector<Tensor>&;

constexpr int64_t kReduceMaxRank = 8;

// The Reduce* operators: x reduced over `axes`, keeping them as size 1 or not.
struct ReduceOp {
  const char* onnx;
  const char* name;
  Tensor (*fn)(const Tensor& x, const Axes& axes, bool keep);
};
Tensor reduce_l1(const Tensor& x, const Axes& a, bool k) { return sum(abs(x), a, k); }
Tensor reduce_l2(const Tensor& x, const Axes& a, bool k) { return sqrt(sum(x * x, a, k)); }
Tensor reduce_log_sum(const Tensor& x, const Axes& a, bool k) { return log(sum(x, a, k)); }
Tensor reduce_sum_square(const Tensor& x, const Axes& a, bool k) { return sum(x * x, a, k); }
Tensor reduce_sum(const Tensor& x, const Axes& a, bool k) { return sum(x, a, k); }
Tensor reduce_mean(const Tensor& x, const Axes& a, bool k) { return mean(x, a, k); }
Tensor reduce_max(const Tensor& x, const Axes& a, bool k) { return amax(x, a, k); }
Tensor reduce_min(const Tensor& x, const Axes& a, bool k) { return amin(x, a, k); }
Tensor reduce_prod(const Tensor& x, const Axes& a, bool k) { return prod(x, a, k); }
Tensor reduce_log_sum_exp(const Tensor& x, const Axes& a, bool k) { return logsumexp(x, a, k); }
constexpr ReduceOp kReduceOps[] = {
    {"ReduceSum", "sum", reduce_sum},          {"ReduceMean", "mean", reduce_mean},
    {"ReduceMax", "max", reduce_max},          {"ReduceMin", "min", reduce_min},
    {"ReduceProd", "prod", reduce_prod},       {"ReduceL1", "l1", reduce_l1},
    {"ReduceL2", "l2", reduce_l2},             {"ReduceLogSum", "log_sum", reduce_log_sum},
    {"ReduceLogSumExp", "log_sum_exp", reduce_log_sum_exp}, {"ReduceSumSquare", "sum_square", reduce_sum_square},
};

// The axes a bit mask names (the weight's length).
Axes reduce_axes(int64_t mask) {
  Axes axes;
  for (int64_t a = 0; a < kReduceMaxRank; ++a)
    if (mask & (int64_t{1} << a)) axes.push_back(a);
  return axes;
}

// ArgMax/ArgMin with select_last_index: the first extreme of the reversed axis, counted back.
Tensor reduce_arg(const Tensor& x, int64_t axis, bool keep, bool last, bool max) {
  if (!last) return max ? argmax(x, axis, keep) : argmin(x, axis, keep);
  const Tensor reversed = flip(x, {axis});
  const Tensor i = max ? argmax(reversed, axis, keep) : argmin(reversed, axis, keep);
  return cast(static_cast<double>(x.size(axis) - 1) - i, kInt64);  // exact: sizes are far below 2^53
}

// CumSum: exclusive shifts the sums by one (the first is 0), reverse sums from the end.
Tensor reduce_cumsum(const Tensor& x, int64_t axis, bool exclusive, bool reverse) {
  const Tensor in = reverse ? flip(x, {axis}) : x;
  Tensor y = cumsum(in, axis);
  if (exclusive) {  // [0, y_0, ..., y_{n-2}]: no subtraction, so no rounding of its own
    std::vector<std::pair<int64_t, int64_t>> pads(x.dim() - axis, {0, 0});
    pads[0] = {1, 0};
    y = slice(pad(y, pads), axis, 0, x.size(axis));
  }
  return reverse ? flip(y, {axis}) : y;
}

// ".<axis>.<a><b>", the flags as 0 or 1: "onnx.argmax.1.10".
std::string reduce_flags(int64_t axis, bool a, bool b) {
  std::string s(1, '.');  // (not "." + to_string: GCC 12 warns falsely, -Wrestrict)
  s += std::to_string(axis);
  s += '.';
  s += a ? '1' : '0';
  s += b ? '1' : '0';
  return s;
}

struct ReduceRegistration {
  ReduceRegistration() {
    for (const ReduceOp& r : kReduceOps)
      for (bool keep : {false, true})
        nn::register_function(std::string("onnx.reduce_") + r.name + (keep ? ".keep" : ""),
                              [f = r.fn, keep](const Tensor& x, Ws w) {
                                const int64_t mask = w.at(0).numel();
                                if (mask == 0)  // no axes: over a new axis of size 1 (ReduceL1 gives |x|)
                                  return f(unsqueeze(x, x.dim()), {x.dim()}, false);
                                return f(x, reduce_axes(mask), keep);
                              });
    for (int64_t axis = 0; axis < kReduceMaxRank; ++axis)
      for (bool a : {false, true})
        for (bool b : {false, true}) {
          const std::string flags = reduce_flags(axis, a, b);
          nn::register_function("onnx.argmax" + flags, [=](const Tensor& x) { return reduce_arg(x, axis, a, b, true); });
          nn::register_function("onnx.argmin" + flags, [=](const Tensor& x) { return reduce_arg(x, axis, a, b, false); });
          nn::register_function("onnx.cumsum" + flags, [=](const Tensor& x) { return reduce_cumsum(x, axis, a, b); });
          // TopK: a, largest; b, the indices (else the values); k the weight's length.
          nn::register_function("onnx.topk" + flags, [=](const Tensor& x, Ws w) {
            const ValuesAndIndices t = topk(x, w.at(0).numel(), axis, a, true);
            return b ? t.indices : t.values;
          });
        }
  }
};
const ReduceRegistration reduce_registration;

int64_t reduce_rank(const Symbol& s) { return static_cast<int64_t>(s.shape().size()); }

// A constant int64 input (absent: empty), of 8 values at most.
std::vector<int64_t> reduce_ints(const Importer& im, const pb::NodeProto& node, int i, const std::string& what) {
  if (im.num_inputs(node) <= static_cast<size_t>(i) || node.input(i).empty()) return {};
  const Tensor t = im.constant(node, i);
  require(t.dtype() == kInt64 && t.dim() <= 1 && t.numel() <= kReduceMaxRank, im, node,
          what + " must be a constant int64 vector of 8 values at most");
  return t.to_vector<int64_t>();
}

// An axis in [-rank, rank) as an index; the first axis, the batch, only when its size is fixed
// (the result's first axis is then no longer the batch).
int64_t reduce_axis(const Importer& im, const pb::NodeProto& node, int64_t axis, const Symbol& x) {
  const int64_t r = reduce_rank(x);
  require(axis >= -r && axis < r, im, node, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
  axis = axis < 0 ? axis + r : axis;
  require(axis != 0 || x.shape()[0] >= 1, im, node, "reducing the symbolic batch axis is not supported");
  return axis;
}

void reduce_op(Importer& im, const pb::NodeProto& node) {
  const ReduceOp* op = nullptr;
  for (const ReduceOp& r : kReduceOps)
    if (node.op_type() == r.onnx) op = &r;
  require(op != nullptr, im, node, "is not a reduction");
  const Symbol x = im.value(node, 0);
  const int64_t r = reduce_rank(x);
  require(r <= kReduceMaxRank, im, node, "needs an input of rank 8 at most");
  std::vector<int64_t> axes = ints_attribute(node, "axes", {});
  if (im.num_inputs(node) > 1) {
    require(axes.empty(), im, node, "has axes both as an attribute and as an input");
    axes = reduce_ints(im, node, 1, "axes");
  }
  // No axes reduce all, or none with noop_with_empty_axes: then each element alone, as onnx's
  // reference computes it (ReduceSumSquare squares, ReduceLogSum takes the log).
  if (axes.empty() && int_attribute(node, "noop_with_empty_axes", 0) == 0)
    for (int64_t a = 0; a < r; ++a) axes.push_back(a);
  int64_t mask = 0;
  for (int64_t a : axes) mask |= int64_t{1} << reduce_axis(im, node, a, x);
  const bool keep = int_attribute(node, "keepdims", 1) != 0;
  const std::string function = std::string("onnx.reduce_") + op->name + (keep ? ".keep" : "");
  im.set_output(node, im.function(node, function, {x}, {{"axes", zeros(Shape{mask})}}));
}

void arg_op(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  const int64_t axis = reduce_axis(im, node, int_attribute(node, "axis", 0), x);
  const bool keep = int_attribute(node, "keepdims", 1) != 0, last = int_attribute(node, "select_last_index", 0) != 0;
  const std::string base = node.op_type() == "ArgMax" ? "onnx.argmax" : "onnx.argmin";
  im.set_output(node, im.function(node, base + reduce_flags(axis, keep, last), {x}));
}

void cumsum_op(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  const Tensor a = im.constant(node, 1);
  require((a.dtype() == kInt64 || a.dtype() == kInt32) && a.numel() == 1, im, node, "axis must be one constant integer");
  const int64_t r = reduce_rank(x), axis = cast(a, kInt64).reshape({}).item<int64_t>();
  require(axis >= -r && axis < r, im, node, "axis " + std::to_string(axis) + " is out of range");
  const bool exclusive = int_attribute(node, "exclusive", 0) != 0, reverse = int_attribute(node, "reverse", 0) != 0;
  im.set_output(node, im.function(node, "onnx.cumsum" + reduce_flags(axis < 0 ? axis + r : axis, exclusive, reverse), {x}));
}

// TopK's two outputs (values, indices) as two lambdas, k (a constant input from opset 10) the
// length of their weight.
void topk_op(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  const int64_t axis = reduce_axis(im, node, int_attribute(node, "axis", -1), x);
  const std::vector<int64_t> k = reduce_ints(im, node, 1, "K");
  require(k.size() == 1 && k[0] >= 1 && k[0] <= x.shape()[axis], im, node,
          "K must be one value from 1 to the axis's size " + std::to_string(x.shape()[axis]));
  const bool largest = int_attribute(node, "largest", 1) != 0;
  // sorted = 0 leaves the order to the implementation: sorted is one.
  for (int i = 0; i < node.output_size() && i < 2; ++i)
    if (!node.output(i).empty())
      im.set_output(node, im.function(node, "onnx.topk" + reduce_flags(axis, largest, i == 1), {x}, {{"k", zeros(Shape{k[0]})}}),
                    i);
}

}  // namespace

const std::map<std::string, OpImport>& reduce_imports() {
  static const std::map<std::string, OpImport> table = [] {
    std::map<std::string, OpImport> t;
    for (const ReduceOp& r : kReduceOps) t[r.onnx] = reduce_op;
    t["ArgMax"] = arg_op;
    t["ArgMin"] = arg_op;
    t["CumSum"] = cumsum_op;
    t["TopK"] = topk_op;
    return t;
  }();
  return table;
}

}  // namespace strata::onnx::detail
