#include "onnx_import_legacy.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::onnx::detail {

namespace {

// Operators the import reads that ONNX introduced after opset 7, and when (onnx 1.23.2's
// schemas; OnnxOpsets.FirstOpsetsFollowOnnxSchemas checks this list).
const std::map<std::string, int64_t> kIntroduced = {
    {"Expand", 8},
    {"Acosh", 9},
    {"Asinh", 9},
    {"Atanh", 9},
    {"ConstantOfShape", 9},
    {"Cosh", 9},
    {"Erf", 9},
    {"Shrink", 9},
    {"Sign", 9},
    {"Sinh", 9},
    {"Where", 9},
    {"Mod", 10},
    {"ThresholdedRelu", 10},
    {"CumSum", 11},
    {"GatherElements", 11},
    {"Range", 11},
    {"Round", 11},
    {"Celu", 12},
    {"GreaterOrEqual", 12},
    {"LessOrEqual", 12},
    {"HardSwish", 14},
    {"LayerNormalization", 17},
    {"Mish", 18},
    {"Gelu", 20},
    {"GatherND", 11},
    {"ScatterElements", 11},
    {"ScatterND", 11},
    {"Einsum", 12},
    {"GroupNormalization", 18},
    {"MaxUnpool", 9},
    {"Scatter", 9},
    {"Resize", 10}};  // read only as opsets 9 and 10 have it, adapted to ScatterElements

// Rewrites one graph; new initializers get names no value of the graph has.
class Adapter {
 public:
  Adapter(const pb::GraphProto& graph, int64_t opset, const std::string& what)
      : graph_(graph), opset_(opset), what_(what) {
    for (const auto& v : graph.input()) names_.insert(v.name());
    for (const auto& v : graph.initializer()) names_.insert(v.name());
    for (const auto& n : graph.node()) names_.insert(n.output().begin(), n.output().end());
    for (const auto& t : graph.initializer()) constants_[t.name()] = &t;
    for (const auto& n : graph.node())
      if (n.op_type() == "Constant" && n.output_size() == 1)
        if (const auto* v = find_attribute(n, "value"); v != nullptr && v->type() == pb::AttributeProto::TENSOR)
          constants_[n.output(0)] = &v->t();
  }

  pb::GraphProto run() {
    for (pb::NodeProto& node : *graph_.mutable_node()) {
      if (!node.domain().empty() && node.domain() != "ai.onnx") continue;  // the importer refuses it by name
      const std::string& op = node.op_type();
      require(first_opset(op) <= opset_, node,
              "operator '" + op + "' does not exist at opset " + std::to_string(opset_) +
                  " (ONNX introduced it at opset " + std::to_string(first_opset(op)) + ")");
      if (op == "Slice" && opset_ < 10)
        slice(node);
      else if (op == "TopK" && opset_ < 10)
        topk(node);
      else if (op == "Pad")
        pad(node);
      else if (op == "Clip")
        clip(node);
      else if (op == "BatchNormalization" && opset_ < 9)
        batch_norm(node);
      else if (op == "Scatter")
        node.set_op_type("ScatterElements");  // renamed at 11 (onnx's Scatter_10_11)
      else if (op == "Upsample" || op == "Resize")
        upsample(node);
    }
    return std::move(graph_);
  }

 private:
  void require(bool ok, const pb::NodeProto& node, const std::string& message) const {
    STRATA_CHECK(ok, what_, ": ", node_str(node), " (opset ", opset_, "): ", message);
  }

  // The attribute `name` removed from the node, checked to be there when `required`.
  std::optional<pb::AttributeProto> take(pb::NodeProto& node, const std::string& name, bool required) {
    auto* attrs = node.mutable_attribute();
    const auto it = std::find_if(attrs->begin(), attrs->end(), [&](const auto& a) { return a.name() == name; });
    require(it != attrs->end() || !required, node, "lacks its attribute '" + name + "'");
    if (it == attrs->end()) return std::nullopt;
    pb::AttributeProto a = *it;
    attrs->erase(it);
    return a;
  }

  // `t` as a new initializer, named after the node's output and what it holds.
  std::string add(const pb::NodeProto& node, const std::string& what, const Tensor& t) {
    const std::string base = (node.output_size() > 0 ? node.output(0) : node.name()) + "/" + what;
    std::string name = base;
    for (int i = 1; names_.count(name); ++i) name = base + "_" + std::to_string(i);
    names_.insert(name);
    set_tensor(*graph_.add_initializer(), name, t);
    return name;
  }

  std::string add_ints(const pb::NodeProto& node, const std::string& what, const std::vector<int64_t>& v) {
    return add(node, what, from_vector(v, Shape{static_cast<int64_t>(v.size())}));
  }

  // Input `i` of the node is `name` (empty inputs fill the places before it).
  static void set_input(pb::NodeProto& node, int i, const std::string& name) {
    while (node.input_size() <= i) node.add_input("");
    node.set_input(i, name);
  }

  // Slice-1: starts, ends and axes attributes -> inputs 1-3 (onnx's Slice_9_10).
  void slice(pb::NodeProto& node) {
    require(node.input_size() == 1, node, "Slice before opset 10 has one input");
    const auto starts = take(node, "starts", true), ends = take(node, "ends", true), axes = take(node, "axes", false);
    for (const auto* a : {&*starts, &*ends})
      require(a->type() == pb::AttributeProto::INTS, node, "'" + a->name() + "' must be integers");
    set_input(node, 1, add_ints(node, "starts", {starts->ints().begin(), starts->ints().end()}));
    set_input(node, 2, add_ints(node, "ends", {ends->ints().begin(), ends->ints().end()}));
    if (axes) {
      require(axes->type() == pb::AttributeProto::INTS, node, "'axes' must be integers");
      set_input(node, 3, add_ints(node, "axes", {axes->ints().begin(), axes->ints().end()}));
    }
  }

  // TopK-1: the k attribute -> input 1 (onnx's TopK_9_10).
  void topk(pb::NodeProto& node) {
    require(node.input_size() == 1, node, "TopK before opset 10 has one input");
    const auto k = take(node, "k", true);
    require(k->type() == pb::AttributeProto::INT, node, "'k' must be an integer");
    set_input(node, 1, add_ints(node, "k", {k->i()}));
  }

  // Pad-2: pads and value attributes -> inputs 1 and 2 (onnx's Pad_10_11); the mode stays.
  void pad(pb::NodeProto& node) {
    require(node.input_size() == 1, node, "Pad before opset 11 has one input");
    const auto pads = take(node, "pads", true), value = take(node, "value", false);
    require(pads->type() == pb::AttributeProto::INTS, node, "'pads' must be integers");
    set_input(node, 1, add_ints(node, "pads", {pads->ints().begin(), pads->ints().end()}));
    if (value) {
      require(value->type() == pb::AttributeProto::FLOAT, node, "'value' must be a float");
      set_input(node, 2, add(node, "value", from_vector(std::vector<float>{value->f()}, Shape{})));
    }
  }

  // Clip-6: min and max attributes -> inputs 1 and 2 (onnx's Clip_10_11); Clip-6's defaults are
  // the float range.
  void clip(pb::NodeProto& node) {
    require(node.input_size() == 1, node, "Clip before opset 11 has one input");
    const auto lo = take(node, "min", false), hi = take(node, "max", false);
    for (const auto& a : {lo, hi})
      require(!a || a->type() == pb::AttributeProto::FLOAT, node, "'min' and 'max' must be floats");
    const float low = lo ? lo->f() : std::numeric_limits<float>::lowest();
    if (lo || hi) set_input(node, 1, add(node, "min", from_vector(std::vector<float>{low}, Shape{})));
    if (hi) set_input(node, 2, add(node, "max", from_vector(std::vector<float>{hi->f()}, Shape{})));
  }

  // BatchNormalization-7: spatial = 1 (the default) is opset 9's definition; spatial = 0, one
  // statistic per activation rather than per channel, is not.
  void batch_norm(pb::NodeProto& node) {
    const auto spatial = take(node, "spatial", false);
    require(!spatial || (spatial->type() == pb::AttributeProto::INT && spatial->i() == 1), node,
            "spatial 0 (statistics per activation, not per channel) is not supported");
  }

  // Upsample (7: scales an attribute; 9: an input) and Resize-10 -> Resize-11 (onnx's Upsample_8_9,
  // Upsample_9_10, Resize_10_11) with the coordinates those opsets define: asymmetric, and
  // nearest rounding down, which is what they do when enlarging; shrinking with nearest (which
  // onnxruntime rounds up there) is refused.
  void upsample(pb::NodeProto& node) {
    const std::string mode = string_attribute(node, "mode", "nearest");
    require(mode == "nearest" || mode == "linear", node, "mode '" + mode + "' is not supported");
    std::string scales;
    std::vector<float> values;  // the scales, when they are constants
    if (const auto attr = take(node, "scales", false)) {
      require(attr->type() == pb::AttributeProto::FLOATS, node, "'scales' must be floats");
      values.assign(attr->floats().begin(), attr->floats().end());
      scales = add(node, "scales", from_vector(values, Shape{static_cast<int64_t>(values.size())}));
    } else {
      require(node.input_size() >= 2 && !node.input(1).empty(), node, "needs scales");
      scales = node.input(1);
      if (const auto it = constants_.find(scales); it != constants_.end())
        values = cast(tensor_from(*it->second), kFloat32).to_vector<float>();
    }
    if (mode == "nearest" && !values.empty())
      require(std::all_of(values.begin(), values.end(), [](float v) { return v >= 1; }), node,
              "mode nearest needs constant scales of at least 1");
    // Scales computed from shapes (PyTorch's opset-9 interpolate to another value's size) are
    // known only when the import folds them: Resize checks them then (onnx_import_resize.cpp).
    if (mode == "nearest" && values.empty()) set_string(node, kUpsampleNearest, "1");
    const std::string x = node.input(0);
    node.clear_input();
    for (const std::string& in : {x, std::string(), scales}) node.add_input(in);
    node.set_op_type("Resize");
    set_string(node, "coordinate_transformation_mode", "asymmetric");
    if (mode == "nearest") set_string(node, "nearest_mode", "floor");
  }

  std::map<std::string, const pb::TensorProto*> constants_;  // initializers and Constant values
  pb::GraphProto graph_;
  int64_t opset_;
  std::string what_;
  std::set<std::string> names_;
};

}  // namespace

pb::GraphProto adapt_old_graph(const pb::GraphProto& graph, int64_t opset, const std::string& what) {
  return Adapter(graph, opset, what).run();
}

int64_t first_opset(const std::string& op) {
  const auto it = kIntroduced.find(op);
  return it == kIntroduced.end() ? kOldestOpset : it->second;
}

}  // namespace strata::onnx::detail
