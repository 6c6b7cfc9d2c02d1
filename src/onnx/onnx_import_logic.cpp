// Comparisons, logic, Where and Cast on values. Comparisons and logic give float32 0/1 (Strata's
// layers pass float values; Where, Not and a Cast read them as ONNX's booleans), of two values or
// of a value and a constant on either side; Where takes any of its three inputs as a constant.
#include <string>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/functions.hpp"
#include "strata/ops/elementwise.hpp"

#include "onnx_import.hpp"

namespace strata::onnx::detail {

namespace {

using nn::Symbol;
using Xs = const std::vector<Tensor>&;
using Ws = const std::vector<Tensor>&;

Tensor logic_float(const Tensor& t) { return cast(t, kFloat32); }
Tensor logic_truth(const Tensor& t) { return t.dtype() == kBool ? t : ne(t, zeros_like(t)); }

// The binary comparisons and logic, by ONNX name; `swapped` is the operator that gives the same
// answer with the operands exchanged (k > x is x < k), so that a constant is always second.
struct LogicOp {
  const char* onnx;
  const char* name;
  const char* swapped;
  Tensor (*fn)(const Tensor&, const Tensor&);
};
Tensor logic_and(const Tensor& a, const Tensor& b) { return logical_and(logic_truth(a), logic_truth(b)); }
Tensor logic_or(const Tensor& a, const Tensor& b) { return logical_or(logic_truth(a), logic_truth(b)); }
Tensor logic_xor(const Tensor& a, const Tensor& b) { return ne(logic_truth(a), logic_truth(b)); }
constexpr LogicOp kLogicOps[] = {
    {"Greater", "greater", "less", gt},       {"Less", "less", "greater", lt},
    {"GreaterOrEqual", "greater_equal", "less_equal", ge}, {"LessOrEqual", "less_equal", "greater_equal", le},
    {"Equal", "equal", "equal", eq},          {"And", "and", "and", logic_and},
    {"Or", "or", "or", logic_or},             {"Xor", "xor", "xor", logic_xor},
};

// Cast's targets: ONNX's element type -> Strata's dtype.
struct LogicCast {
  int32_t onnx;
  const char* name;
  DType dtype;
};
constexpr LogicCast kLogicCasts[] = {
    {pb::TensorProto::FLOAT, "float32", kFloat32}, {pb::TensorProto::DOUBLE, "float64", kFloat64},
    {pb::TensorProto::INT64, "int64", kInt64},     {pb::TensorProto::INT32, "int32", kInt32},
    {pb::TensorProto::UINT8, "uint8", kUInt8},     {pb::TensorProto::BOOL, "bool", kBool},
};

// Where's inputs in order, each a value ('v') or one of the weights ('w'): "onnx.where.vwv".
const std::string kWherePatterns[] = {"vvv", "vvw", "vwv", "vww", "wvv", "wvw", "wwv"};

struct LogicRegistration {
  LogicRegistration() {
    // Kept under the names the first import wrote (onnx.greater, onnx.less, onnx.where).
    for (const LogicOp& op : kLogicOps)
      nn::register_function(std::string("onnx.") + op.name, [f = op.fn](Xs xs, Ws w) {
        return logic_float(f(xs.at(0), xs.size() > 1 ? xs[1] : w.at(0)));
      });
    nn::register_function("onnx.not", [](const Tensor& x) { return logic_float(logical_not(logic_truth(x))); });
    for (const std::string& p : kWherePatterns)
      nn::register_function("onnx.where" + std::string(p == "vvv" ? "" : "." + p), [p](Xs xs, Ws w) {
        size_t v = 0, k = 0;
        std::vector<Tensor> in;
        for (char c : p) in.push_back(c == 'v' ? xs.at(v++) : w.at(k++));
        return where(logic_truth(in[0]), in[1], in[2]);
      });
    for (const LogicCast& c : kLogicCasts)
      nn::register_function(std::string("onnx.cast.") + c.name, [dtype = c.dtype](const Tensor& x) {
        return dtype == kBool ? logic_truth(x) : cast(x, dtype);
      });
  }
};
const LogicRegistration logic_registration;

int64_t logic_rank(const Symbol& s) { return static_cast<int64_t>(s.shape().size()); }

void logic_binary(Importer& im, const pb::NodeProto& node) {
  const LogicOp* op = nullptr;
  for (const LogicOp& l : kLogicOps)
    if (node.op_type() == l.onnx) op = &l;
  require(op != nullptr && im.num_inputs(node) == 2, im, node, "needs two inputs");
  if (!im.is_constant(node, 0) && !im.is_constant(node, 1))
    return im.set_output(node, im.function(node, std::string("onnx.") + op->name, {im.value(node, 0), im.value(node, 1)}));
  const int c = im.is_constant(node, 1) ? 1 : 0;
  const Symbol x = im.value(node, 1 - c);
  const Tensor k = im.constant(node, c);
  // The value's first axis stays the result's (it may be the batch).
  require(k.dim() <= logic_rank(x), im, node, "a constant of higher rank than the value is not supported");
  im.set_output(node, im.function(node, std::string("onnx.") + (c == 1 ? op->name : op->swapped), {x}, {{"value", k}}));
}

void logic_not(Importer& im, const pb::NodeProto& node) {
  im.set_output(node, im.function(node, "onnx.not", {im.value(node, 0)}));
}

void logic_where(Importer& im, const pb::NodeProto& node) {
  require(im.num_inputs(node) == 3, im, node, "needs three inputs");
  std::string pattern;
  std::vector<Symbol> xs;
  std::vector<std::pair<std::string, Tensor>> weights;
  for (int i = 0; i < 3; ++i) {
    if (im.is_constant(node, i)) {
      pattern += 'w';
      // A boolean condition is kept as int64 (read as non-zero): a saved model's config sizes
      // bool and uint8 weights as float32 ones, so they would not load back.
      const Tensor c = im.constant(node, i);
      weights.push_back({"input_" + std::to_string(i), c.dtype() == kBool ? cast(c, kInt64) : c});
    } else {
      pattern += 'v';
      xs.push_back(im.value(node, i));
    }
  }
  require(!xs.empty(), im, node, "needs a computed value among its inputs");
  for (const auto& [name, t] : weights)
    require(t.dim() <= logic_rank(xs[0]), im, node, "a constant of higher rank than the values is not supported");
  im.set_output(node, im.function(node, "onnx.where" + (pattern == "vvv" ? "" : "." + pattern), xs, weights));
}

}  // namespace

namespace {

const LogicCast& logic_cast_of(const Importer& im, const pb::NodeProto& node) {
  const int64_t to = int_attribute(node, "to", 0);
  for (const LogicCast& c : kLogicCasts)
    if (c.onnx == to) return c;
  const int t = static_cast<int>(to);
  require(false, im, node,
          "a cast to " + (pb::TensorProto::DataType_IsValid(t) ? pb::TensorProto::DataType_Name(t) : std::to_string(to)) +
              " is not supported (float, double, int64, int32, uint8 and bool are)");
  return kLogicCasts[0];
}

void logic_cast(Importer& im, const pb::NodeProto& node) {
  im.set_output(node, im.function(node, std::string("onnx.cast.") + logic_cast_of(im, node).name, {im.value(node, 0)}));
}

}  // namespace

DType cast_target(const Importer& im, const pb::NodeProto& node) { return logic_cast_of(im, node).dtype; }

std::optional<DType> element_dtype(int32_t elem_type) {
  for (const LogicCast& c : kLogicCasts)
    if (c.onnx == elem_type) return c.dtype;
  return std::nullopt;
}

const std::map<std::string, OpImport>& logic_imports() {
  static const std::map<std::string, OpImport> table = [] {
    std::map<std::string, OpImport> t;
    for (const LogicOp& op : kLogicOps) t[op.onnx] = logic_binary;
    t["Not"] = logic_not;
    t["Where"] = logic_where;
    t["Cast"] = logic_cast;
    return t;
  }();
  return table;
}

}  // namespace strata::onnx::detail
