// Operators that move or repeat elements: Pad (constant, reflect, edge; pads and axes as
// inputs), Expand and Tile of values, DepthToSpace/SpaceToDepth, Size, and the generators folded
// while importing (ConstantOfShape, Range); Gemm whose operands are computed values, LRN, and
// Dropout's mask. Sizes that decide an output's shape are the lengths of a lambda's weights (one
// weight per axis) or part of the function's name, so that a saved model declares the same shapes.
#include <algorithm>
#include <cmath>

#include "strata/core/checked_size.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/functions.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/shape.hpp"

#include "onnx_import.hpp"

namespace strata::onnx::detail {

namespace {

using nn::Symbol;
using Xs = const std::vector<Tensor>&;
using Ws = const std::vector<Tensor>&;

constexpr int64_t kShapeMaxBlock = 16;

int64_t shape_rank(const Symbol& s) { return static_cast<int64_t>(s.shape().size()); }

// The sizes the weights' lengths give, from weight `first` on.
std::vector<int64_t> shape_lengths(Ws w, size_t first) {
  std::vector<int64_t> out;
  for (size_t i = first; i < w.size(); ++i) out.push_back(w[i].numel());
  return out;
}

// One zero weight per size, of that length.
std::vector<std::pair<std::string, Tensor>> shape_weights(const std::string& name, const std::vector<int64_t>& sizes) {
  std::vector<std::pair<std::string, Tensor>> out;
  for (size_t i = 0; i < sizes.size(); ++i) out.push_back({name + "_" + std::to_string(i), zeros(Shape{sizes[i]})});
  return out;
}

// DepthToSpace (DCR: depth, column, row; CRD: column, row, depth) and SpaceToDepth of [N, C, H, W].
Tensor shape_depth_to_space(const Tensor& x, int64_t b, bool crd) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  STRATA_CHECK(c % (b * b) == 0, "DepthToSpace: ", c, " channels are not a multiple of ", b * b);
  const Tensor y = crd ? permute(reshape(x, Shape{n, c / (b * b), b, b, h, w}), Shape{0, 1, 4, 2, 5, 3})
                       : permute(reshape(x, Shape{n, b, b, c / (b * b), h, w}), Shape{0, 3, 4, 1, 5, 2});
  return reshape(contiguous(y), Shape{n, c / (b * b), h * b, w * b});
}
Tensor shape_space_to_depth(const Tensor& x, int64_t b, bool crd) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  STRATA_CHECK(h % b == 0 && w % b == 0, "SpaceToDepth: ", h, "x", w, " is not a multiple of ", b);
  const Tensor blocks = reshape(x, Shape{n, c, h / b, b, w / b, b});
  const Tensor y = crd ? permute(blocks, Shape{0, 1, 3, 5, 2, 4}) : permute(blocks, Shape{0, 3, 5, 1, 2, 4});
  return reshape(contiguous(y), Shape{n, c * b * b, h / b, w / b});
}

// LRN over the channels (axis 1): x / (bias + alpha / size * sum of x² over the window)^beta,
// the window from c - floor((size - 1) / 2) to c + ceil((size - 1) / 2).
Tensor shape_lrn(const Tensor& x, Ws w) {
  const double alpha = w.at(0).item<double>(), beta = w.at(1).item<double>(), bias = w.at(2).item<double>();
  const int64_t size = w.at(3).numel(), c = x.size(1);
  std::vector<std::pair<int64_t, int64_t>> pads(x.dim() - 1, {0, 0});
  pads[0] = {(size - 1) / 2, size / 2};
  const Tensor squares = pad(x * x, pads);
  Tensor window = slice(squares, 1, 0, c);
  for (int64_t k = 1; k < size; ++k) window = window + slice(squares, 1, k, k + c);
  return x / pow(window * (alpha / static_cast<double>(size)) + bias, beta);
}

// Gemm of computed operands: alpha op(A) op(B) + beta C, C a value, a weight or absent.
Tensor shape_gemm(Xs xs, Ws w, bool ta, bool tb, char c) {
  const Tensor a = ta ? transpose(xs.at(0), 0, 1) : xs.at(0), b = tb ? transpose(xs.at(1), 0, 1) : xs.at(1);
  Tensor y = matmul(a, b) * w.at(0).item<double>();
  if (c == 'n') return y;
  return y + (c == 'v' ? xs.at(2) : w.at(2)) * w.at(1).item<double>();
}

// Pad in wrap mode: axis a gets its last b elements before it and its first e after it, b + 1
// and e + 1 the lengths of weights 2a and 2a + 1.
Tensor shape_pad_wrap(const Tensor& x, Ws w) {
  STRATA_CHECK(w.size() == 2 * static_cast<size_t>(x.dim()), "onnx.pad_wrap: ", w.size() / 2, " padded axes for ",
               x.shape().str());
  Tensor y = x;
  for (int64_t a = 0; a < x.dim(); ++a) {
    const int64_t b = w[2 * a].numel() - 1, e = w[2 * a + 1].numel() - 1, n = x.size(a);
    STRATA_CHECK(b <= n && e <= n, "onnx.pad_wrap: pads ", b, " and ", e, " exceed axis ", a, " of ", x.shape().str());
    if (b == 0 && e == 0) continue;
    y = concat({slice(y, a, n - b, n), y, slice(y, a, 0, e)}, a);
  }
  return y;
}

struct ShapeRegistration {
  ShapeRegistration() {
    nn::register_function("onnx.pad_wrap", shape_pad_wrap);
    nn::register_function("onnx.expand", [](const Tensor& x, Ws w) {
      const Shape target(shape_lengths(w, 0));
      return contiguous(broadcast_to(x, broadcast_shapes(x.shape(), target, "Expand")));
    });
    nn::register_function("onnx.tile", [](const Tensor& x, Ws w) { return tile(x, shape_lengths(w, 0)); });
    for (int64_t b = 1; b <= kShapeMaxBlock; ++b) {
      const std::string s = std::to_string(b);
      nn::register_function("onnx.depth_to_space." + s, [b](const Tensor& x) { return shape_depth_to_space(x, b, false); });
      nn::register_function("onnx.depth_to_space_crd." + s, [b](const Tensor& x) { return shape_depth_to_space(x, b, true); });
      nn::register_function("onnx.space_to_depth." + s, [b](const Tensor& x) { return shape_space_to_depth(x, b, false); });
      nn::register_function("onnx.space_to_depth_crd." + s, [b](const Tensor& x) { return shape_space_to_depth(x, b, true); });
    }
    nn::register_function("onnx.lrn", shape_lrn);
    nn::register_function("onnx.dropout_mask", [](const Tensor& x) { return ones_like(cast(x, kFloat32)); });
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (char c : {'n', 'v', 'w'})
          nn::register_function(std::string("onnx.gemm.") + (ta ? "t" : "n") + (tb ? "t" : "n") + c,
                                [=](Xs xs, Ws w) { return shape_gemm(xs, w, ta, tb, c); });
  }
};
const ShapeRegistration shape_registration;

// A constant integer vector input (absent: empty), of 16 values at most.
std::vector<int64_t> shape_ints(const Importer& im, const pb::NodeProto& node, int i, const std::string& what) {
  if (im.num_inputs(node) <= static_cast<size_t>(i) || node.input(i).empty()) return {};
  const Tensor t = im.constant(node, i);
  require((t.dtype() == kInt64 || t.dtype() == kInt32) && t.dim() <= 1 && t.numel() <= 16, im, node,
          what + " must be a constant integer vector of 16 values at most");
  return cast(t, kInt64).to_vector<int64_t>();
}

// The result of shape `out` (the batch counted as 1 where symbolic), bounded as a file's tensors are.
void shape_bounded(const Importer& im, const pb::NodeProto& node, std::vector<int64_t> out) {
  for (int64_t& d : out) d = std::max<int64_t>(d, 1);
  checked_size(out, 8, im.what() + ": " + node_str(node));
}

void shape_pad(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  const int64_t r = shape_rank(x);
  const std::string mode = string_attribute(node, "mode", "constant");
  require(mode == "constant" || mode == "reflect" || mode == "edge" || mode == "wrap", im, node,
          "mode '" + mode + "' is not supported (constant, reflect, edge and wrap are)");
  const std::vector<int64_t> pads = shape_ints(im, node, 1, "pads");
  std::vector<int64_t> axes = shape_ints(im, node, 3, "axes");
  if (axes.empty())
    for (int64_t a = 0; a < r; ++a) axes.push_back(a);
  require(pads.size() == 2 * axes.size(), im, node, "needs two pads per padded axis");
  std::vector<std::vector<int64_t>> padding(r, {0, 0});
  std::vector<int64_t> out(x.shape().begin(), x.shape().end());
  for (size_t i = 0; i < axes.size(); ++i) {
    require(axes[i] >= -r && axes[i] < r, im, node, "axis " + std::to_string(axes[i]) + " is out of range");
    const int64_t a = axes[i] < 0 ? axes[i] + r : axes[i], before = pads[i], after = pads[i + axes.size()];
    require(before >= 0 && after >= 0 && before <= 4096 && after <= 4096, im, node,
            "pads must be between 0 and 4096 (negative pads are not supported)");
    require(a != 0 || x.shape()[0] >= 1 || before + after == 0, im, node, "padding the symbolic batch axis is not supported");
    require(mode == "constant" || ((before < x.shape()[a] && after < x.shape()[a]) || x.shape()[a] < 0), im, node,
            mode + " padding needs pads smaller than the axis");
    padding[a] = {before, after};
    out[a] += before + after;
  }
  shape_bounded(im, node, out);
  if (mode == "wrap") {  // the pads are the lengths of the function's weights
    std::vector<std::pair<std::string, Tensor>> lengths;
    for (int64_t a = 0; a < r; ++a) {
      lengths.push_back({"before" + std::to_string(a), zeros(Shape{padding[a][0] + 1}, kInt64)});
      lengths.push_back({"after" + std::to_string(a), zeros(Shape{padding[a][1] + 1}, kInt64)});
    }
    return im.set_output(node, im.function(node, "onnx.pad_wrap", {x}, lengths));
  }
  double value = 0;
  if (im.num_inputs(node) > 2 && !node.input(2).empty()) {
    const Tensor v = im.constant(node, 2);
    require(v.numel() == 1, im, node, "constant_value must be one value");
    value = cast(v, kFloat64).reshape({}).item<double>();
  }
  im.set_output(node, im.layer(node, "padlayer",
                               {{"padding", padding}, {"mode", mode == "edge" ? "replicate" : mode}, {"constant_value", value}},
                               {x}));
}

void shape_expand(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  const std::vector<int64_t> target = shape_ints(im, node, 1, "shape");
  const Shape& in = x.shape();
  const int64_t rank = static_cast<int64_t>(target.size());
  require(rank <= 8, im, node, "needs a shape of 8 values at most");
  // A symbolic batch stays the first axis while the shape is of lower rank or keeps it (1).
  require(in[0] >= 1 || rank < shape_rank(x) || (rank == shape_rank(x) && target[0] == 1), im, node,
          "expanding the symbolic batch axis is not supported");
  for (int64_t d : target) require(d >= 0 && d <= (int64_t{1} << 31), im, node, "sizes must be from 0 to 2^31");
  std::vector<int64_t> probe(in.begin(), in.end());
  for (int64_t& d : probe) d = std::max<int64_t>(d, 1);
  const Shape out = broadcast_shapes(Shape(probe), Shape(target), (im.what() + ": " + node_str(node)).c_str());
  shape_bounded(im, node, out.vec());
  im.set_output(node, im.function(node, "onnx.expand", {x}, shape_weights("dim", target)));
}

void shape_tile(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  const std::vector<int64_t> repeats = shape_ints(im, node, 1, "repeats");
  require(static_cast<int64_t>(repeats.size()) == shape_rank(x), im, node, "needs one repeat per axis");
  std::vector<int64_t> out(x.shape().begin(), x.shape().end());
  for (size_t i = 0; i < repeats.size(); ++i) {
    require(repeats[i] >= 1 && repeats[i] <= (int64_t{1} << 31), im, node, "repeats must be from 1 to 2^31");
    out[i] = std::max<int64_t>(out[i], 1) * repeats[i];
  }
  shape_bounded(im, node, out);
  im.set_output(node, im.function(node, "onnx.tile", {x}, shape_weights("repeat", repeats)));
}

void shape_depth_space(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  require(shape_rank(x) == 4, im, node, "needs a 4-d input");
  const int64_t b = int_attribute(node, "blocksize", 0);
  require(b >= 1 && b <= kShapeMaxBlock, im, node, "blocksize must be from 1 to 16");
  // SpaceToDepth has a mode from opset 28 (DCR before, the default).
  const std::string mode = string_attribute(node, "mode", "DCR");
  require(mode == "DCR" || mode == "CRD", im, node, "mode must be DCR or CRD");
  const std::string base = node.op_type() == "DepthToSpace" ? "onnx.depth_to_space" : "onnx.space_to_depth";
  im.set_output(node, im.function(node, base + (mode == "CRD" ? "_crd." : ".") + std::to_string(b), {x}));
}

// Size of a value whose shape is fixed: a constant.
void shape_size(Importer& im, const pb::NodeProto& node) {
  const Shape& s = im.value(node, 0).shape();
  int64_t n = 1;
  for (int64_t d : s) {
    require(d >= 0, im, node, "the size of " + s.str() + " is not fixed (its batch axis is symbolic)");
    n *= d;  // bounded: the value exists
  }
  im.set_constant(node, from_vector(std::vector<int64_t>{n}, Shape{}));
}

void shape_lrn_op(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  const int64_t size = int_attribute(node, "size", 0);
  require(shape_rank(x) >= 3 && size >= 1 && size <= 1024, im, node, "needs an input with channels and size from 1 to 1024");
  im.set_output(node, im.function(node, "onnx.lrn", {x},
                                  {{"alpha", scalar(float_attribute(node, "alpha", 1e-4f))},
                                   {"beta", scalar(float_attribute(node, "beta", 0.75f))},
                                   {"bias", scalar(float_attribute(node, "bias", 1.0f))},
                                   {"size", zeros(Shape{size})}}));
}

// Dropout at inference: the input, and a mask of ones (float32, as Strata's comparisons give).
void shape_dropout(Importer& im, const pb::NodeProto& node) {
  if (im.num_inputs(node) > 2) {
    const Tensor training = im.constant(node, 2);
    require(training.numel() == 1 && training.item<double>() == 0.0, im, node, "training mode is not supported");
  }
  const Symbol x = im.value(node, 0);
  im.set_output(node, x);
  if (node.output_size() > 1 && !node.output(1).empty()) im.set_output(node, im.function(node, "onnx.dropout_mask", {x}), 1);
}

// ConstantOfShape of a constant shape: the value attribute (a one-element tensor; float 0 by
// default) repeated.
Tensor shape_constant_of_shape(const Importer& im, const pb::NodeProto& node) {
  const std::vector<int64_t> shape = shape_ints(im, node, 0, "shape");
  for (int64_t d : shape) require(d >= 0, im, node, "sizes must not be negative");
  const auto* v = find_attribute(node, "value");
  Tensor value = zeros(Shape{1});
  if (v != nullptr) {
    require(v->type() == pb::AttributeProto::TENSOR, im, node, "value must be a tensor");
    value = im.read_tensor(v->t());
    require(value.numel() == 1 && v->t().data_type() != pb::TensorProto::FLOAT16, im, node,
            "value must be one element, not float16");
  }
  checked_size(shape, itemsize(value.dtype()), im.what() + ": " + node_str(node));
  return contiguous(broadcast_to(value.reshape({}), Shape(shape)));
}

// Range(start, limit, delta) of constant scalars: max(ceil((limit - start) / delta), 0) values.
Tensor shape_range(const Importer& im, const pb::NodeProto& node) {
  const Tensor start = im.constant(node, 0), limit = im.constant(node, 1), delta = im.constant(node, 2);
  require(start.numel() == 1 && limit.numel() == 1 && delta.numel() == 1 && start.dtype() == limit.dtype() &&
              start.dtype() == delta.dtype(),
          im, node, "needs three scalars of one type");
  const double s = cast(start, kFloat64).reshape({}).item<double>(), l = cast(limit, kFloat64).reshape({}).item<double>(),
               d = cast(delta, kFloat64).reshape({}).item<double>();
  require(d != 0 && std::isfinite(s) && std::isfinite(l) && std::isfinite(d), im, node, "needs finite values and a delta other than 0");
  const double count = std::max(std::ceil((l - s) / d), 0.0);
  require(count <= static_cast<double>(int64_t{1} << 31), im, node, "holds too many values");
  const int64_t n = static_cast<int64_t>(count);
  checked_size(std::vector<int64_t>{n}, 8, im.what() + ": " + node_str(node));
  if (is_floating(start.dtype())) {  // start + i delta in the type's own arithmetic
    const Tensor i = cast(arange(0, static_cast<double>(n), 1), start.dtype());
    return start.reshape({}) + i * delta.reshape({});
  }
  std::vector<int64_t> v(n);
  const int64_t s0 = cast(start, kInt64).reshape({}).item<int64_t>(), d0 = cast(delta, kInt64).reshape({}).item<int64_t>();
  for (int64_t i = 0; i < n; ++i) v[i] = s0 + i * d0;
  return cast(from_vector(v), start.dtype());
}

}  // namespace

// Gemm of two computed operands (a constant B is a Dense layer's, onnx_import_ops.cpp).
void gemm_values(Importer& im, const pb::NodeProto& node) {
  const Symbol a = im.value(node, 0);
  const bool ta = int_attribute(node, "transA", 0) != 0, tb = int_attribute(node, "transB", 0) != 0;
  std::vector<Symbol> xs{a};
  std::vector<std::pair<std::string, Tensor>> weights{{"alpha", scalar(float_attribute(node, "alpha", 1.0f))},
                                                      {"beta", scalar(float_attribute(node, "beta", 1.0f))}};
  require(shape_rank(a) == 2, im, node, "needs a 2-d A");
  require(!im.is_constant(node, 1), im, node, "a constant B needs A untransposed (a Dense layer holds it)");
  xs.push_back(im.value(node, 1));
  char c = 'n';
  if (im.num_inputs(node) > 2) {
    if (im.is_constant(node, 2)) {
      c = 'w';
      weights.push_back({"C", im.constant(node, 2)});
    } else {
      c = 'v';
      xs.push_back(im.value(node, 2));
    }
  }
  const std::string function = std::string("onnx.gemm.") + (ta ? "t" : "n") + (tb ? "t" : "n") + c;
  im.set_output(node, im.function(node, function, xs, weights));
}

const std::map<std::string, OpImport>& shape_imports() {
  static const std::map<std::string, OpImport> table = {
      {"Pad", shape_pad},   {"Expand", shape_expand}, {"Tile", shape_tile},   {"DepthToSpace", shape_depth_space},
      {"SpaceToDepth", shape_depth_space}, {"Size", shape_size}, {"LRN", shape_lrn_op}, {"Dropout", shape_dropout},
  };
  return table;
}

const std::map<std::string, ConstantFold>& shape_folds() {
  static const std::map<std::string, ConstantFold> table = {{"ConstantOfShape", shape_constant_of_shape},
                                                            {"Range", shape_range}};
  return table;
}

}  // namespace strata::onnx::detail
