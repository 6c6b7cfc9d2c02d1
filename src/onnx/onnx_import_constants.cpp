// Shape arithmetic the importer computes while it reads the graph. PyTorch's exporter writes a
// recurrent module's zero initial state as Expand(0, Concat(1, Unsqueeze(Gather(Shape(x), 1)),
// units)), and attention's head reshapes and 1/sqrt(d) from Shape, Slice, Mod, Cast and Sqrt:
// with the input's shape fixed, Shape is a constant and so is all that follows, which becomes
// one more constant of the graph (here) instead of layers of the model.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "strata/core/checked_size.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/shape.hpp"

#include "onnx_import.hpp"

namespace strata::onnx::detail {

std::vector<int64_t> squeeze_axes_given(const Importer& im, const pb::NodeProto& node) {
  return im.num_inputs(node) > 1 ? im.constant(node, 1).to_vector<int64_t>() : ints_attribute(node, "axes", {});
}

namespace {

// The fold's result, refused when it would be larger than any tensor a file may hold.
Tensor bounded(const Importer& im, const pb::NodeProto& node, const Tensor& t) {
  checked_size(t.shape().vec(), itemsize(t.dtype()), im.what() + ": " + node_str(node));
  return t;
}

Tensor gather(const Importer& im, const pb::NodeProto& node) {
  const Tensor data = im.constant(node, 0), indices = im.constant(node, 1);
  require(data.dim() >= 1 && indices.dtype() == kInt64, im, node, "needs int64 indices into a tensor of rank 1 or more");
  const int64_t axis = axis_attribute(im, node, 0, data.dim()), n = data.size(axis);
  std::vector<int64_t> ids = indices.to_vector<int64_t>();
  for (int64_t& i : ids) {
    require(i >= -n && i < n, im, node, "index " + std::to_string(i) + " is out of range");
    if (i < 0) i += n;
  }
  // data.shape[:axis] + indices.shape + data.shape[axis + 1:]
  std::vector<int64_t> shape(data.shape().begin(), data.shape().begin() + axis);
  shape.insert(shape.end(), indices.shape().begin(), indices.shape().end());
  shape.insert(shape.end(), data.shape().begin() + axis + 1, data.shape().end());
  checked_size(shape, itemsize(data.dtype()), im.what() + ": " + node_str(node));
  return reshape(index_select(data, axis, from_vector(ids)), Shape(shape));
}

Tensor unsqueeze_fold(const Importer& im, const pb::NodeProto& node) {
  Tensor x = im.constant(node, 0);
  std::vector<int64_t> axes = squeeze_axes_given(im, node);
  const int64_t rank = x.dim() + static_cast<int64_t>(axes.size());
  require(!axes.empty() && rank <= 8, im, node, "needs 1 or more axes and a result of rank 8 at most");
  for (int64_t& a : axes) {
    require(a >= -rank && a < rank, im, node, "axis " + std::to_string(a) + " is out of range");
    a = a < 0 ? a + rank : a;
  }
  std::sort(axes.begin(), axes.end());
  require(std::adjacent_find(axes.begin(), axes.end()) == axes.end(), im, node, "an axis is repeated");
  for (int64_t a : axes) x = unsqueeze(x, a);  // increasing: each axis is then the result's own
  return x;
}

// Squeeze of a constant: the axes given (input 1 from opset 13, the attribute before), each of
// size 1, or without axes every axis of size 1.
Tensor squeeze_fold(const Importer& im, const pb::NodeProto& node) {
  const Tensor x = im.constant(node, 0);
  std::vector<int64_t> axes = squeeze_axes_given(im, node);
  for (int64_t& a : axes) {
    require(a >= -x.dim() && a < x.dim(), im, node, "axis " + std::to_string(a) + " is out of range");
    a = a < 0 ? a + x.dim() : a;
    require(x.size(a) == 1, im, node, "axis " + std::to_string(a) + " of " + x.shape().str() + " is not of size 1");
  }
  std::vector<int64_t> shape;
  for (int64_t i = 0; i < x.dim(); ++i)
    if (axes.empty() ? x.size(i) != 1 : std::find(axes.begin(), axes.end(), i) == axes.end())
      shape.push_back(x.size(i));
  return reshape(contiguous(x), Shape(shape));
}

Tensor concat_fold(const Importer& im, const pb::NodeProto& node) {
  std::vector<Tensor> xs;
  for (size_t i = 0; i < im.num_inputs(node); ++i) xs.push_back(im.constant(node, static_cast<int>(i)));
  require(!xs.empty() && xs[0].dim() >= 1, im, node, "needs inputs of rank 1 or more");
  const int64_t axis = axis_attribute(im, node, 0, xs[0].dim());
  for (const Tensor& x : xs) {
    bool fits = x.dim() == xs[0].dim() && x.dtype() == xs[0].dtype();
    for (int64_t a = 0; fits && a < x.dim(); ++a) fits = a == axis || x.size(a) == xs[0].size(a);
    require(fits, im, node, "inputs " + xs[0].shape().str() + " and " + x.shape().str() + " do not concatenate");
  }
  return bounded(im, node, concat(xs, axis));
}

// The NumPy broadcast of two shapes (core's rule), refused naming the node when they do not
// broadcast.
Shape broadcast(const Importer& im, const pb::NodeProto& node, const Shape& x, const Shape& y) {
  const std::string where = im.what() + ": " + node_str(node);
  return broadcast_shapes(x, y, where.c_str());
}

// Expand: NumPy broadcasting of the input and the shape, both ways.
Tensor expand_fold(const Importer& im, const pb::NodeProto& node) {
  const Tensor x = im.constant(node, 0), target = im.constant(node, 1);
  require(target.dtype() == kInt64 && target.dim() == 1 && target.numel() <= 8, im, node,
          "needs an int64 shape of 8 values at most");
  const Shape shape = broadcast(im, node, x.shape(), Shape(target.to_vector<int64_t>()));
  checked_size(shape.vec(), itemsize(x.dtype()), im.what() + ": " + node_str(node));
  return contiguous(broadcast_to(x, shape));
}

Tensor reshape_fold(const Importer& im, const pb::NodeProto& node) {
  const Tensor x = im.constant(node, 0);
  return reshape(x, reshaped(im, node, x.shape(), im.constant(node, 1)));
}

Tensor slice_fold(const Importer& im, const pb::NodeProto& node) {
  Tensor x = im.constant(node, 0);
  for (const SliceRange& r : slice_ranges(im, node, x.shape())) x = slice(x, r.axis, r.start, r.end, r.step);
  return contiguous(x);
}

// Size of a constant: its element count, an int64 scalar.
Tensor size_fold(const Importer& im, const pb::NodeProto& node) {
  return from_vector(std::vector<int64_t>{im.constant(node, 0).numel()}, Shape{});
}

// Equal, Less, Greater of constants of one element type (broadcasting): booleans.
template <char kOp>
Tensor compare_fold(const Importer& im, const pb::NodeProto& node) {
  const Tensor a = im.constant(node, 0), b = im.constant(node, 1);
  require(a.dtype() == b.dtype(), im, node, "needs operands of one element type");
  checked_size(broadcast(im, node, a.shape(), b.shape()).vec(), 1, im.what() + ": " + node_str(node));
  return kOp == '=' ? eq(a, b) : kOp == '<' ? lt(a, b) : gt(a, b);
}

// Not of a boolean constant.
Tensor not_fold(const Importer& im, const pb::NodeProto& node) {
  const Tensor x = im.constant(node, 0);
  require(x.dtype() == kBool, im, node, "needs a boolean operand");
  return eq(x, zeros_like(x));
}

Tensor cast_fold(const Importer& im, const pb::NodeProto& node) {
  const DType to = cast_target(im, node);
  const Tensor x = im.constant(node, 0);
  if (to == kBool) return ne(x, zeros_like(x));
  if (!is_floating(to) && is_floating(x.dtype())) {  // a float outside the integer type has no value there
    const double limit = to == kInt64 ? 9.2e18 : to == kInt32 ? 2147483647.0 : 255.0;
    for (double v : cast(x, kFloat64).to_vector<double>())
      require(std::isfinite(v) && std::abs(v) <= limit && (to != kUInt8 || v >= 0), im, node,
              std::string("a value cast to ") + dtype_name(to) + " is not finite or out of its range");
  }
  return cast(x, to);
}

Tensor sqrt_fold(const Importer& im, const pb::NodeProto& node) {
  const Tensor x = im.constant(node, 0);
  require(x.dtype() == kFloat32, im, node, "needs a float32 input");
  return strata::sqrt(x);
}

// Add, Sub, Mul, Div and Mod of two constants of one dtype, broadcast as NumPy does: float32 by
// Strata's ops, int64 here (ONNX's integer Div truncates, its Mod takes the divisor's sign).
template <char kOp>
Tensor arithmetic_fold(const Importer& im, const pb::NodeProto& node) {
  const Tensor a = im.constant(node, 0), b = im.constant(node, 1);
  require(a.dtype() == b.dtype(), im, node, "needs operands of one element type");
  require(kOp != '%' || int_attribute(node, "fmod", 0) == 0, im, node, "fmod is not supported");
  // Checked before anything is computed: two small operands can broadcast to a huge result.
  const Shape shape = broadcast(im, node, a.shape(), b.shape());
  checked_size(shape.vec(), itemsize(a.dtype()), im.what() + ": " + node_str(node));
  if (a.dtype() == kFloat32 && kOp != '%')
    return kOp == '+' ? a + b : kOp == '-' ? a - b : kOp == '*' ? a * b : a / b;
  require(a.dtype() == kInt64, im, node, "needs float32 or int64 operands");
  const Tensor ab = contiguous(broadcast_to(a, shape)), bb = contiguous(broadcast_to(b, shape));
  std::vector<int64_t> x = ab.to_vector<int64_t>();
  const std::vector<int64_t> y = bb.to_vector<int64_t>();
  for (size_t i = 0; i < x.size(); ++i) {
    require((kOp != '/' && kOp != '%') || (y[i] != 0 && !(x[i] == std::numeric_limits<int64_t>::min() && y[i] == -1)),
            im, node, "integer division by zero or overflowing");
    // wrap around as ONNX's int64 does, without C++'s undefined overflow
    const auto ux = static_cast<uint64_t>(x[i]), uy = static_cast<uint64_t>(y[i]);
    if (kOp == '+') x[i] = static_cast<int64_t>(ux + uy);
    if (kOp == '-') x[i] = static_cast<int64_t>(ux - uy);
    if (kOp == '*') x[i] = static_cast<int64_t>(ux * uy);
    if (kOp == '/') x[i] = x[i] / y[i];
    if (kOp == '%') x[i] = (x[i] % y[i] != 0 && (x[i] % y[i] < 0) != (y[i] < 0)) ? x[i] % y[i] + y[i] : x[i] % y[i];
  }
  return from_vector(x, ab.shape());
}

Tensor identity_fold(const Importer& im, const pb::NodeProto& node) { return im.constant(node, 0); }

}  // namespace

Shape reshaped(const Importer& im, const pb::NodeProto& node, const Shape& in, const Tensor& target) {
  require(target.dtype() == kInt64 && target.dim() == 1 && target.numel() >= 1 && target.numel() <= 8, im, node,
          "needs a constant int64 shape of 1 to 8 values");
  std::vector<int64_t> out = target.to_vector<int64_t>();
  // allowzero 1 (PyTorch's dynamo exporter writes it) differs only where the shape holds a 0
  require(int_attribute(node, "allowzero", 0) == 0 || std::count(out.begin(), out.end(), 0) == 0, im, node,
          "allowzero with a 0 in the shape is not supported");
  int64_t numel = 1, known = 1, unknown = -1;
  for (int64_t d : in.vec()) numel *= d;  // bounded: the input exists (checked_size)
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 0) {
      require(i < static_cast<size_t>(in.size()), im, node, "a 0 in the shape copies an axis the input lacks");
      out[i] = in[static_cast<int64_t>(i)];
    }
    require(out[i] >= -1 && (out[i] != -1 || unknown < 0), im, node, "sizes must be positive, 0 or one -1");
    if (out[i] == -1) {
      unknown = static_cast<int64_t>(i);
      continue;
    }
    require(out[i] <= numel && (out[i] == 0 || known <= numel / out[i]), im, node,
            "shape " + target.shape().str() + " holds more elements than the input's " + in.str());
    known *= out[i];
  }
  if (unknown >= 0) {
    require(known > 0 && numel % known == 0, im, node, "no size for -1 makes the input's " + in.str() + " fit");
    out[unknown] = numel / known;
  }
  int64_t total = 1;
  for (int64_t d : out) total *= d;
  require(total == numel, im, node, "shape " + Shape(out).str() + " does not hold the input's " + in.str());
  return Shape(out);
}

// Shape of a value whose shape is fixed (a symbolic batch has no constant shape).
void shape_op(Importer& im, const pb::NodeProto& node) {
  const Shape s = im.value(node, 0).shape();
  const int64_t rank = static_cast<int64_t>(s.size());
  int64_t start = int_attribute(node, "start", 0), end = int_attribute(node, "end", rank);
  start = std::clamp(start < 0 ? start + rank : start, int64_t{0}, rank);  // ONNX clamps both
  end = std::clamp(end < 0 ? end + rank : end, start, rank);
  const std::vector<int64_t> dims(s.begin() + start, s.begin() + end);
  require(std::find(dims.begin(), dims.end(), -1) == dims.end(), im, node,
          "the shape of " + s.str() + " is not fixed (its batch axis is symbolic)");
  im.set_constant(node, from_vector(dims));
}

const std::map<std::string, ConstantFold>& constant_folds() {
  static const std::map<std::string, ConstantFold> table = [] {
    std::map<std::string, ConstantFold> t = {{"Gather", gather},
                                             {"Unsqueeze", unsqueeze_fold},
                                             {"Squeeze", squeeze_fold},
                                             {"Concat", concat_fold},
                                             {"Expand", expand_fold},
                                             {"Identity", identity_fold},
                                             {"Reshape", reshape_fold},
                                             {"Slice", slice_fold},
                                             {"Cast", cast_fold},
                                             {"Sqrt", sqrt_fold},
                                             {"Add", arithmetic_fold<'+'>},
                                             {"Sub", arithmetic_fold<'-'>},
                                             {"Mul", arithmetic_fold<'*'>},
                                             {"Div", arithmetic_fold<'/'>},
                                             {"Mod", arithmetic_fold<'%'>},
                                             {"Size", size_fold},
                                             {"Equal", compare_fold<'='>},
                                             {"Less", compare_fold<'<'>},
                                             {"Greater", compare_fold<'>'>},
                                             {"Not", not_fold}};
    t.insert(shape_folds().begin(), shape_folds().end());
    return t;
  }();
  return table;
}

}  // namespace strata::onnx::detail
