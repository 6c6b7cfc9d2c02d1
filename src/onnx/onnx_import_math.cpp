// Element-wise math and activations on values: binary arithmetic with a constant on either side
// or between two values (NumPy broadcasting), Sum/Max/Min/Mean of N inputs, the unary operators
// that are not ops of the unary list (composed here, in float64 where a composition would lose
// float32 digits), the activations with attributes, and (Log)Softmax over any axis. The unary
// list's own operators (Neg, Exp, Sqrt, ...) come from its `onnx` column (onnx_import_ops.cpp).
//
// Each becomes a Lambda of a function registered below; an attribute that decides the output's
// shape (an axis) is part of the function's name, others are the Lambda's weights, so that an
// imported model saves and loads like any static model.
#include <cmath>
#include <functional>
#include <limits>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/functions.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"
#include "strata/ops/softmax.hpp"

#include "onnx_import.hpp"

namespace strata::onnx::detail {

namespace {

using nn::Symbol;
using Ws = const std::vector<Tensor>&;
using Xs = const std::vector<Tensor>&;

int64_t math_rank(const Symbol& s) { return static_cast<int64_t>(s.shape().size()); }

double weight(Ws w, size_t i) { return w.at(i).item<double>(); }

// --- functions -------------------------------------------------------------------------------

// f(a, b) over the NumPy broadcast of a and b, element by element in C++ (the operators Strata
// has no op for: ONNX's integer Div and its two Mods); the result has a's dtype. Float types go
// through double, integers through int64 (exact for every int64).
Tensor math_pointwise(const Tensor& a, const Tensor& b, const char* op, double (*f_float)(double, double),
                      int64_t (*f_int)(int64_t, int64_t)) {
  const Shape shape = broadcast_shapes(a.shape(), b.shape(), op);
  // While a model is declared: the shape alone (a probe of zeros would divide by zero).
  if (a.is_meta() || b.is_meta()) return Tensor::empty(shape, a.dtype(), kMeta);
  const Tensor ab = contiguous(broadcast_to(a, shape)), bb = contiguous(broadcast_to(b, shape));
  if (is_floating(a.dtype())) {
    std::vector<double> x = cast(ab, kFloat64).to_vector<double>();
    const std::vector<double> y = cast(bb, kFloat64).to_vector<double>();
    for (size_t i = 0; i < x.size(); ++i) x[i] = f_float(x[i], y[i]);
    return cast(from_vector(x, shape), a.dtype());
  }
  STRATA_CHECK(f_int != nullptr, op, ": needs floating-point operands");
  std::vector<int64_t> x = cast(ab, kInt64).to_vector<int64_t>();
  const std::vector<int64_t> y = cast(bb, kInt64).to_vector<int64_t>();
  for (size_t i = 0; i < x.size(); ++i) {
    STRATA_CHECK(y[i] != 0 && !(x[i] == std::numeric_limits<int64_t>::min() && y[i] == -1), op,
                 ": integer division by zero or overflowing");
    x[i] = f_int(x[i], y[i]);
  }
  return cast(from_vector(x, shape), a.dtype());
}

// ONNX's Div: true division of floats, truncating division of integers.
Tensor math_div(const Tensor& a, const Tensor& b) {
  if (is_floating(a.dtype())) return a / b;
  return math_pointwise(a, b, "Div", nullptr, [](int64_t x, int64_t y) { return x / y; });
}

// Mod with fmod 0: a - floor(a / b) b, the divisor's sign (Python's %); of floats from opset
// 28 (a zero result takes b's sign, a zero divisor gives NaN).
Tensor math_mod(const Tensor& a, const Tensor& b) {
  return math_pointwise(
      a, b, "Mod",
      [](double x, double y) {
        const double r = std::fmod(x, y);  // NaN for y = 0, x infinite or either NaN
        if (r == 0) return std::copysign(0.0, y);
        return (r < 0) != (y < 0) ? r + y : r;
      },
      [](int64_t x, int64_t y) {
        const int64_t r = x % y;
        return r != 0 && (r < 0) != (y < 0) ? r + y : r;
      });
}

// Mod with fmod 1: C's fmod, the dividend's sign.
Tensor math_fmod(const Tensor& a, const Tensor& b) {
  return math_pointwise(a, b, "Mod", [](double x, double y) { return std::fmod(x, y); },
                        [](int64_t x, int64_t y) { return x % y; });
}

// ONNX's Pow: the result has the base's type, whatever the exponent's.
Tensor math_pow(const Tensor& a, const Tensor& b) {
  if (is_floating(a.dtype())) return strata::pow(a, cast(b, a.dtype()));
  return cast(strata::pow(cast(a, kFloat64), cast(b, kFloat64)), a.dtype());
}

using Binary = Tensor (*)(const Tensor&, const Tensor&);
Tensor math_add(const Tensor& a, const Tensor& b) { return a + b; }
Tensor math_sub(const Tensor& a, const Tensor& b) { return a - b; }
Tensor math_mul(const Tensor& a, const Tensor& b) { return a * b; }

// The binary operators by ONNX name: the function's name and whether the operands commute.
struct MathBinary {
  const char* onnx;
  const char* name;
  Binary fn;
  bool commutes;
};
constexpr MathBinary kMathBinaries[] = {
    {"Add", "add", math_add, true},   {"Sub", "sub", math_sub, false}, {"Mul", "mul", math_mul, true},
    {"Div", "div", math_div, false},  {"Pow", "pow", math_pow, false}, {"Mod", "mod", math_mod, false},
    {"Mod", "fmod", math_fmod, false},
};

// Sum, Max, Min and Mean of values and constants, broadcasting.
struct MathVariadic {
  const char* onnx;
  const char* name;
  Binary fn;
};
constexpr MathVariadic kMathVariadics[] = {
    {"Sum", "sum", math_add}, {"Max", "max", strata::maximum}, {"Min", "min", strata::minimum}, {"Mean", "mean", math_add}};

// Composed unary operators, computed in float64 and cast back to the input's type.
struct MathComposed {
  const char* onnx;
  const char* name;
  Tensor (*fn)(const Tensor& x);  // of a float64 tensor
};
Tensor math_tan(const Tensor& x) { return sin(x) / cos(x); }
Tensor math_sinh(const Tensor& x) { return (exp(x) - exp(-x)) * 0.5; }
Tensor math_cosh(const Tensor& x) { return (exp(x) + exp(-x)) * 0.5; }
// asinh(x) = sign(x) log(|x| + sqrt(x² + 1)): no cancellation for large negative x.
Tensor math_asinh(const Tensor& x) { return sign(x) * log(abs(x) + sqrt(x * x + 1.0)); }
Tensor math_acosh(const Tensor& x) { return log(x + sqrt(x * x - 1.0)); }
Tensor math_atanh(const Tensor& x) { return log((1.0 + x) / (1.0 - x)) * 0.5; }
// x hard_sigmoid(x), Strata's hard_sigmoid being ONNX's HardSwish's: clip(x / 6 + 1/2, 0, 1)
Tensor math_hard_swish(const Tensor& x) { return x * hard_sigmoid(x); }
Tensor math_mish(const Tensor& x) { return mish(x); }
Tensor math_gelu(const Tensor& x) { return gelu(x); }
// Gelu's tanh form: x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x³)))
Tensor math_gelu_tanh(const Tensor& x) {
  return x * 0.5 * (tanh((x + x * x * x * 0.044715) * 0.79788456080286535588) + 1.0);
}
constexpr MathComposed kMathComposed[] = {
    {"Tan", "tan", math_tan},          {"Sinh", "sinh", math_sinh},       {"Cosh", "cosh", math_cosh},
    {"Asinh", "asinh", math_asinh},    {"Acosh", "acosh", math_acosh},    {"Atanh", "atanh", math_atanh},
    {"HardSwish", "hard_swish", math_hard_swish}, {"Mish", "mish", math_mish}, {"Gelu", "gelu", math_gelu},
    {"Gelu", "gelu_tanh", math_gelu_tanh},
};

// The right operand of a binary function: the second input, or the Lambda's constant.
const Tensor& math_right(Xs xs, Ws w) { return xs.size() > 1 ? xs[1] : w.at(0); }

Tensor math_selu(const Tensor& x, Ws w) {  // gamma (x > 0 ? x : alpha (e^x - 1))
  return where(x > 0.0, x, (exp(x) - 1.0) * weight(w, 0)) * weight(w, 1);
}
Tensor math_celu(const Tensor& x, Ws w) {  // max(0, x) + min(0, alpha (e^(x / alpha) - 1))
  const double alpha = weight(w, 0);
  return where(x > 0.0, x, (exp(x / alpha) - 1.0) * alpha);
}
Tensor math_shrink(const Tensor& x, Ws w) {  // x + bias below -lambd, x - bias above lambd, else 0
  const double lambd = weight(w, 0), bias = weight(w, 1);
  return where(x < -lambd, x + bias, where(x > lambd, x - bias, zeros_like(x)));
}
Tensor math_thresholded_relu(const Tensor& x, Ws w) { return where(x > weight(w, 0), x, zeros_like(x)); }
// PRelu: the slope (a second input or the weight) broadcast to x.
Tensor math_prelu(Xs xs, Ws w) {
  const Tensor& x = xs.at(0);
  return where(x < 0.0, x * math_right(xs, w), x);
}

// LogSoftmax as (x - max) - log(sum(exp(x - max))), as onnxruntime computes it: log_softmax's
// x - logsumexp(x) loses the small result's digits when x is large (10000 + ...).
Tensor math_log_softmax(const Tensor& x, int64_t axis) {
  const Tensor shifted = x - amax(x, {axis}, true);
  return shifted - log(sum(exp(shifted), {axis}, true));
}

// Hardmax: 1 where the first maximum along the axis is, 0 elsewhere (no gradient flows).
Tensor math_hardmax(const Tensor& x, int64_t axis) {
  if (axis < 0) axis += x.dim();
  Shape positions(std::vector<int64_t>(static_cast<size_t>(x.dim()), 1));
  positions[axis] = x.shape()[axis];
  return cast(reshape(arange(x.shape()[axis], {kInt64, x.device()}), positions) == argmax(x, axis, true), x.dtype());
}

// Softmax, LogSoftmax and Hardmax as opsets before 13 define them: over the axes from `axis` on,
// flattened.
Tensor math_softmax_flat(const Tensor& x, int64_t axis, Tensor (*over_last)(const Tensor&, int64_t)) {
  std::vector<int64_t> flat(x.shape().begin(), x.shape().begin() + axis);
  flat.push_back(-1);
  return reshape(over_last(reshape(x, Shape(flat)), -1), x.shape());
}
Tensor math_plain_softmax(const Tensor& x, int64_t axis) { return softmax(x, axis); }

struct MathRegistration {
  MathRegistration() {
    for (const MathBinary& b : kMathBinaries) {
      nn::register_function(std::string("onnx.") + b.name,
                            [f = b.fn](Xs xs, Ws w) { return f(xs.at(0), math_right(xs, w)); });
      if (!b.commutes)  // the constant on the left: k - x, k / x, ...
        nn::register_function(std::string("onnx.r") + b.name, [f = b.fn](Xs xs, Ws w) { return f(w.at(0), xs.at(0)); });
    }
    for (const MathVariadic& v : kMathVariadics)
      nn::register_function(std::string("onnx.") + v.name + "_of", [f = v.fn, mean = std::string(v.name) == "mean"](Xs xs, Ws w) {
        std::vector<Tensor> all(xs.begin(), xs.end());
        all.insert(all.end(), w.begin(), w.end());
        Tensor y = all.at(0);
        for (size_t i = 1; i < all.size(); ++i) y = f(y, all[i]);
        return mean ? y / static_cast<double>(all.size()) : y;
      });
    for (const MathComposed& c : kMathComposed)
      nn::register_function(std::string("onnx.") + c.name,
                            [f = c.fn](const Tensor& x) { return cast(f(cast(x, kFloat64)), x.dtype()); });
    nn::register_function("onnx.selu_of", math_selu);
    nn::register_function("onnx.celu", math_celu);
    nn::register_function("onnx.shrink", math_shrink);
    nn::register_function("onnx.thresholded_relu", math_thresholded_relu);
    nn::register_function("onnx.prelu", nn::NamedFn(math_prelu));
    for (int64_t axis = 0; axis < 8; ++axis) {
      const std::string a = std::to_string(axis);
      nn::register_function("onnx.softmax." + a, [axis](const Tensor& x) { return softmax(x, axis); });
      nn::register_function("onnx.log_softmax." + a, [axis](const Tensor& x) { return math_log_softmax(x, axis); });
      nn::register_function("onnx.hardmax." + a, [axis](const Tensor& x) { return math_hardmax(x, axis); });
      nn::register_function("onnx.softmax_flat." + a,
                            [axis](const Tensor& x) { return math_softmax_flat(x, axis, math_plain_softmax); });
      nn::register_function("onnx.log_softmax_flat." + a,
                            [axis](const Tensor& x) { return math_softmax_flat(x, axis, math_log_softmax); });
      nn::register_function("onnx.hardmax_flat." + a,
                            [axis](const Tensor& x) { return math_softmax_flat(x, axis, math_hardmax); });
    }
  }
};
const MathRegistration math_registration;

// --- import ------------------------------------------------------------------------------------

void math_binary(Importer& im, const pb::NodeProto& node) {
  require(im.num_inputs(node) == 2, im, node, "needs two inputs");
  const bool fmod = node.op_type() == "Mod" && int_attribute(node, "fmod", 0) != 0;
  const MathBinary* op = nullptr;
  for (const MathBinary& b : kMathBinaries)
    if (node.op_type() == b.onnx && (node.op_type() != "Mod" || (std::string(b.name) == "fmod") == fmod)) op = &b;
  require(op != nullptr, im, node, "is not a binary operator");
  const std::string name = std::string("onnx.") + op->name;
  if (!im.is_constant(node, 0) && !im.is_constant(node, 1)) {
    const Symbol a = im.value(node, 0), b = im.value(node, 1);
    // Two values of one shape added or multiplied: Strata's merge layer, as its export writes them.
    if (a.shape() == b.shape() && (op->fn == math_add || op->fn == math_mul))
      return im.set_output(node, im.layer(node, "elementwise", {{"combine", op->fn == math_add ? "add" : "multiply"}, {"act", ""}},
                                          {a, b}));
    return im.set_output(node, im.function(node, name, {a, b}));
  }
  const int c = im.is_constant(node, 1) ? 1 : 0;
  const Symbol x = im.value(node, 1 - c);
  const Tensor k = im.constant(node, c);
  // The value's first axis stays the result's (it may be the batch).
  require(k.dim() <= math_rank(x), im, node, "a constant of higher rank than the value is not supported");
  const std::string function = c == 0 && !op->commutes ? std::string("onnx.r") + op->name : name;
  im.set_output(node, im.function(node, function, {x}, {{"value", k}}));
}

void math_variadic(Importer& im, const pb::NodeProto& node) {
  const MathVariadic* op = nullptr;
  for (const MathVariadic& v : kMathVariadics)
    if (node.op_type() == v.onnx) op = &v;
  require(op != nullptr, im, node, "is not a variadic operator");
  std::vector<Symbol> xs;
  std::vector<std::pair<std::string, Tensor>> constants;
  for (size_t i = 0; i < im.num_inputs(node); ++i) {
    const int n = static_cast<int>(i);
    if (im.is_constant(node, n))
      constants.push_back({"value_" + std::to_string(i), im.constant(node, n)});
    else
      xs.push_back(im.value(node, n));
  }
  require(!xs.empty(), im, node, "needs a computed value among its inputs");
  if (xs.size() == 1 && constants.empty()) return im.set_output(node, xs[0]);
  // The merge layer where it applies, as before (values of one shape only).
  bool same = constants.empty() && xs.size() > 1;
  for (const Symbol& x : xs) same = same && x.shape() == xs[0].shape();
  const std::string combine = op->name == std::string("sum")   ? "add"
                              : op->name == std::string("max") ? "maximum"
                              : op->name == std::string("min") ? "minimum"
                                                               : "mean";
  if (same) return im.set_output(node, im.layer(node, "elementwise", {{"combine", combine}, {"act", ""}}, xs));
  im.set_output(node, im.function(node, std::string("onnx.") + op->name + "_of", xs, constants));
}

void math_composed(Importer& im, const pb::NodeProto& node) {
  std::string name;
  if (node.op_type() == "Gelu") {
    const std::string approximate = string_attribute(node, "approximate", "none");
    require(approximate == "none" || approximate == "tanh", im, node,
            "approximate '" + approximate + "' is not supported (none and tanh are)");
    name = approximate == "none" ? "gelu" : "gelu_tanh";
  } else {
    for (const MathComposed& c : kMathComposed)
      if (node.op_type() == c.onnx) name = c.name;
  }
  im.set_output(node, im.function(node, "onnx." + name, {im.value(node, 0)}));
}

// An activation whose attributes are its Lambda's weights.
void math_activation(Importer& im, const pb::NodeProto& node, const std::string& function,
                     const std::vector<std::pair<std::string, float>>& attributes) {
  std::vector<std::pair<std::string, Tensor>> weights;
  for (const auto& [name, fallback] : attributes) weights.push_back({name, scalar(float_attribute(node, name, fallback))});
  im.set_output(node, im.function(node, function, {im.value(node, 0)}, weights));
}

void math_selu(Importer& im, const pb::NodeProto& node) {
  math_activation(im, node, "onnx.selu_of", {{"alpha", 1.67326319217681884765625f}, {"gamma", 1.05070102214813232421875f}});
}
void math_celu(Importer& im, const pb::NodeProto& node) {
  require(float_attribute(node, "alpha", 1.0f) != 0.0f, im, node, "alpha must not be 0");
  math_activation(im, node, "onnx.celu", {{"alpha", 1.0f}});
}
void math_shrink(Importer& im, const pb::NodeProto& node) {
  math_activation(im, node, "onnx.shrink", {{"lambd", 0.5f}, {"bias", 0.0f}});
}
void math_thresholded_relu(Importer& im, const pb::NodeProto& node) {
  math_activation(im, node, "onnx.thresholded_relu", {{"alpha", 1.0f}});
}

// PRelu: a constant slope that Strata's PRelu layer holds (shared or per channel), any other
// broadcastable slope, or a slope computed by the graph.
void math_prelu(Importer& im, const pb::NodeProto& node) {
  require(im.num_inputs(node) == 2, im, node, "needs two inputs");
  const Symbol x = im.value(node, 0);
  if (!im.is_constant(node, 1)) return im.set_output(node, im.function(node, "onnx.prelu", {x, im.value(node, 1)}));
  const Tensor slope = im.constant(node, 1);
  const int64_t r = math_rank(x);
  require(slope.dim() <= r, im, node, "a slope of higher rank than the input is not supported");
  // The slope's shape aligned to x's axes (ONNX broadcasts from the last axis): which axis it
  // varies along, if only one.
  std::vector<int64_t> aligned(r - slope.dim(), 1);
  aligned.insert(aligned.end(), slope.shape().begin(), slope.shape().end());
  auto only = [&](int64_t axis) {
    for (int64_t a = 0; a < r; ++a)
      if (a != axis && aligned[a] != 1) return false;
    return aligned[axis] == x.shape()[axis];
  };
  const bool last = slope.numel() == 1 || only(r - 1), first = !last && r >= 3 && only(1);
  if (slope.dtype() != kFloat32 || !(last || first))
    return im.set_output(node, im.function(node, "onnx.prelu", {x}, {{"slope", slope}}));
  prelu_layer(im, node, x, slope, last);
}

// Softmax, LogSoftmax and Hardmax: from opset 13 over one axis (-1 by default); before, over the
// axes from `axis` (1 by default) on, flattened.
void math_softmax(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  const int64_t r = math_rank(x);
  const bool old = im.opset() < 13;
  const int64_t axis = axis_attribute(im, node, old ? 1 : -1, r);
  require(axis < 8, im, node, "axes past 7 are not supported");
  const std::string& op = node.op_type();
  const std::string base = op == "LogSoftmax" ? "onnx.log_softmax" : op == "Hardmax" ? "onnx.hardmax" : "onnx.softmax";
  const bool flat = old && axis < r - 1;
  im.set_output(node, im.function(node, base + (flat ? "_flat." : ".") + std::to_string(axis), {x}));
}

}  // namespace

const std::map<std::string, OpImport>& math_imports() {
  static const std::map<std::string, OpImport> table = [] {
    std::map<std::string, OpImport> t;
    for (const MathBinary& b : kMathBinaries) t[b.onnx] = math_binary;
    for (const MathVariadic& v : kMathVariadics) t[v.onnx] = math_variadic;
    for (const MathComposed& c : kMathComposed) t[c.onnx] = math_composed;
    t["Selu"] = math_selu;
    t["Celu"] = math_celu;
    t["Shrink"] = math_shrink;
    t["ThresholdedRelu"] = math_thresholded_relu;
    t["PRelu"] = math_prelu;
    t["Softmax"] = math_softmax;
    t["LogSoftmax"] = math_softmax;
    t["Hardmax"] = math_softmax;
    return t;
  }();
  return table;
}

}  // namespace strata::onnx::detail
