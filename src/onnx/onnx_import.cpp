#include "onnx_import.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "strata/core/checked_size.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/lambda.hpp"
#include "strata/nn/layer_config.hpp"
#include "strata/nn/load_weights.hpp"
#include "strata/onnx/onnx.hpp"

namespace strata::onnx {

namespace detail {

namespace {

// Bounds on a hostile graph's structure (its tensors are bounded by max_tensor_bytes).
constexpr int kMaxNodes = 100000;
constexpr int kMaxInputs = 64;
constexpr int kMaxRank = 8;

Shape input_shape(const pb::ValueInfoProto& in, const std::string& what) {
  const std::string where = what + ": input '" + in.name() + "'";
  STRATA_CHECK(in.type().has_tensor_type() && in.type().tensor_type().has_shape(), where, ": needs a tensor type with a shape");
  const auto& dims = in.type().tensor_type().shape().dim();
  STRATA_CHECK(dims.size() >= 1 && dims.size() <= kMaxRank, where, ": rank ", dims.size(), " (1 to ", kMaxRank, ")");
  Shape shape;
  for (int i = 0; i < dims.size(); ++i) {
    const auto& d = dims[i];
    if (i == 0 && (!d.has_dim_value() || d.dim_value() < 0)) {
      shape.push_back(-1);  // the batch
      continue;
    }
    STRATA_CHECK(d.has_dim_value() && d.dim_value() > 0 && d.dim_value() <= (int64_t{1} << 31), where, ": axis ", i,
                 " must have a fixed positive size (only the first, the batch, may be symbolic)");
    shape.push_back(d.dim_value());
  }
  return shape;
}

DType input_dtype(const pb::ValueInfoProto& in, const std::string& what) {
  const int t = in.type().tensor_type().elem_type();
  if (t == pb::TensorProto::FLOAT) return kFloat32;
  if (t == pb::TensorProto::INT64) return kInt64;
  throw Error(what + ": input '" + in.name() + "' has element type " + std::to_string(t) +
              " (float32 and int64 are supported)");
}

}  // namespace

Tensor scalar(float v) { return from_vector(std::vector<float>{v}, Shape{}); }

void require(bool ok, const Importer& im, const pb::NodeProto& node, const std::string& message) {
  STRATA_CHECK(ok, im.what(), ": ", node_str(node), ": ", message);
}

int64_t axis_attribute(const Importer& im, const pb::NodeProto& node, int64_t fallback, int64_t rank) {
  const int64_t axis = int_attribute(node, "axis", fallback);
  require(axis >= -rank && axis < rank, im, node, "axis " + std::to_string(axis) + " is out of range for rank " +
                                                       std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

Importer::Importer(const pb::GraphProto& graph, const std::string& what) : graph_(graph), what_(what) {
  for (const auto& init : graph.initializer()) add_constant(init.name(), tensor_from(init));
  for (const auto& node : graph.node()) used_.insert(node.input().begin(), node.input().end());
  for (const auto& out : graph.output()) used_.insert(out.name());
}

void Importer::add_constant(const std::string& name, Tensor t) {
  STRATA_CHECK(!name.empty() && constants_.emplace(name, std::move(t)).second, what_, ": constant '", name,
               "' is defined twice or has no name");
}

size_t Importer::num_inputs(const pb::NodeProto& node) const {
  size_t n = node.input_size();
  while (n > 0 && node.input(static_cast<int>(n) - 1).empty()) --n;
  return n;
}

nn::Symbol Importer::value(const pb::NodeProto& node, int i) const {
  STRATA_CHECK(i < node.input_size() && !node.input(i).empty(), what_, ": ", node_str(node), " lacks input ", i);
  auto it = values_.find(node.input(i));
  STRATA_CHECK(it != values_.end(), what_, ": ", node_str(node), ": input '", node.input(i), "' is ",
               constants_.count(node.input(i)) ? "a constant where a computed value is supported"
                                               : "not defined before it (the graph must be in topological order)");
  return it->second;
}

bool Importer::is_constant(const pb::NodeProto& node, int i) const {
  return i < node.input_size() && constants_.count(node.input(i)) > 0;
}

Tensor Importer::constant(const pb::NodeProto& node, int i) const {
  STRATA_CHECK(i < node.input_size() && !node.input(i).empty(), what_, ": ", node_str(node), " lacks input ", i);
  auto it = constants_.find(node.input(i));
  STRATA_CHECK(it != constants_.end(), what_, ": ", node_str(node), ": input '", node.input(i),
               "' must be a constant (an initializer) for Strata's import");
  return it->second;
}

std::string Importer::layer_name(const pb::NodeProto& node) {
  // Layer names hold no '/': weights are named "layer/W".
  std::string base = node.name().empty() ? node.output_size() > 0 ? node.output(0) : node.op_type() : node.name();
  for (char& c : base)
    if (c == '/' || c == ':') c = '.';
  while (!base.empty() && base[0] == '.') base.erase(0, 1);
  if (base.empty()) base = "onnx";
  const int n = names_[base]++;
  return n == 0 ? base : base + "_" + std::to_string(n);
}

nn::Symbol Importer::layer(const pb::NodeProto& node, const std::string& kind, const nlohmann::json& config,
                           const std::vector<nn::Symbol>& args, const std::vector<std::pair<std::string, Tensor>>& weights) {
  const std::string name = layer_name(node);
  std::shared_ptr<nn::Layer> l;
  try {
    // A lambda made from its config holds zeros until the weights are assigned; made here it
    // holds its parameters while the model is declared.
    l = kind == "lambda" ? std::make_shared<nn::Lambda>(config.at("function").get<std::string>(), weights, name)
                         : nn::layer_from_config({{"class", kind}, {"name", name}, {"config", config}});
  } catch (const Error& e) {
    throw Error(what_ + ": " + node_str(node) + ": " + e.what());
  }
  for (const auto& [n, t] : weights) weights_.push_back({name + "/" + n, t});
  try {
    return args.size() == 1 ? std::move(*l)(args[0]) : std::move(*l)(args);  // the model owns the layer
  } catch (const Error& e) {
    throw Error(what_ + ": " + node_str(node) + ": " + e.what());
  }
}

nn::Symbol Importer::function(const pb::NodeProto& node, const std::string& function, const std::vector<nn::Symbol>& args,
                              const std::vector<std::pair<std::string, Tensor>>& weights) {
  return layer(node, args.size() == 1 ? "lambda" : "elementwiselambda",
               {{"function", function}, {"weights", nn::lambda_weights_config(weights)}}, args, weights);
}

nn::Symbol Importer::transpose(const pb::NodeProto& node, const nn::Symbol& x, const std::vector<int64_t>& perm) {
  return layer(node, "transpose", {{"perm", perm}}, {x});
}

nn::Symbol Importer::channels_last(const pb::NodeProto& node, const nn::Symbol& x) {
  const int64_t r = static_cast<int64_t>(x.shape().size());
  std::vector<int64_t> p{0};
  for (int64_t i = 2; i < r; ++i) p.push_back(i);
  p.push_back(1);
  return transpose(node, x, p);
}

nn::Symbol Importer::channels_first(const pb::NodeProto& node, const nn::Symbol& x) {
  const int64_t r = static_cast<int64_t>(x.shape().size());
  std::vector<int64_t> p{0, r - 1};
  for (int64_t i = 1; i < r - 1; ++i) p.push_back(i);
  return transpose(node, x, p);
}

void Importer::set_output(const pb::NodeProto& node, const nn::Symbol& s, int i) {
  STRATA_CHECK(node.output_size() > i && !node.output(i).empty(), what_, ": ", node_str(node), " has no output ", i);
  STRATA_CHECK(values_.emplace(node.output(i), s).second && !constants_.count(node.output(i)), what_, ": value '",
               node.output(i), "' is defined twice");
}

void Importer::set_constant(const pb::NodeProto& node, Tensor t) {
  STRATA_CHECK(node.output_size() == 1 && !values_.count(node.output(0)), what_, ": ", node_str(node),
               " must have one output, defined once");
  add_constant(node.output(0), std::move(t));
}

std::shared_ptr<nn::Model> Importer::run(const std::string& name) {
  std::vector<nn::Symbol> inputs, outputs;
  for (const auto& in : graph_.input()) {
    if (constants_.count(in.name())) continue;  // older files list initializers as inputs too
    STRATA_CHECK(static_cast<int>(inputs.size()) < kMaxInputs, what_, ": more than ", kMaxInputs, " inputs");
    const Shape shape = input_shape(in, what_);
    // One batch row, bounded as every tensor read from a file (checked_size: no overflow).
    std::vector<int64_t> row(shape.begin(), shape.end());
    row[0] = 1;
    checked_size(row, 8, what_ + ": input '" + in.name() + "'");
    inputs.push_back(nn::Input(shape, in.name(), input_dtype(in, what_)));
    STRATA_CHECK(values_.emplace(in.name(), inputs.back()).second, what_, ": input '", in.name(), "' is listed twice");
  }
  STRATA_CHECK(!inputs.empty(), what_, ": the graph has no inputs");
  STRATA_CHECK(graph_.node_size() <= kMaxNodes, what_, ": ", graph_.node_size(), " nodes (at most ", kMaxNodes, ")");
  for (const auto& node : graph_.node()) {
    STRATA_CHECK(node.domain().empty() || node.domain() == "ai.onnx", what_, ": ", node_str(node), ": domain '",
                 node.domain(), "' is not supported (the default ONNX domain is)");
    if (node.op_type() == "Constant") {
      const auto* v = find_attribute(node, "value");
      STRATA_CHECK(v != nullptr && v->type() == pb::AttributeProto::TENSOR && node.output_size() == 1, what_, ": ",
                   node_str(node), ": only a Constant holding a tensor 'value' is supported");
      add_constant(node.output(0), tensor_from(v->t()));
      continue;
    }
    const auto fold = constant_folds().find(node.op_type());
    bool constant = fold != constant_folds().end() && num_inputs(node) > 0;
    for (size_t i = 0; constant && i < num_inputs(node); ++i)
      constant = node.input(static_cast<int>(i)).empty() || constants_.count(node.input(static_cast<int>(i)));
    if (constant) {
      set_constant(node, fold->second(*this, node));
      continue;
    }
    auto it = op_imports().find(node.op_type());
    STRATA_CHECK(it != op_imports().end(), what_, ": ", node_str(node), ": operator '", node.op_type(),
                 "' is not supported by Strata's ONNX import (docs/interop.md lists those that are)");
    it->second(*this, node);
  }
  STRATA_CHECK(graph_.output_size() >= 1, what_, ": the graph has no outputs");
  for (const auto& out : graph_.output()) {
    auto it = values_.find(out.name());
    STRATA_CHECK(it != values_.end(), what_, ": output '", out.name(), "' is not computed by the graph");
    outputs.push_back(it->second);
  }
  auto model = std::make_shared<nn::Model>(inputs, outputs, name);
  // Layers of nodes whose outputs reach no graph output are not in the model: their weights are
  // skipped; every weight of the model must come from the file.
  const size_t assigned = nn::assign_weights_by_name(*model, weights_, /*skip_unknown=*/true);
  const size_t expected = model->named_weights().size();
  STRATA_CHECK(assigned == expected, what_, ": ", assigned, " of the model's ", expected, " weights were assigned");
  model->eval();  // an ONNX graph is an inference: batch norms use their moving statistics
  return model;
}

}  // namespace detail

std::shared_ptr<nn::Model> from_onnx(const std::string& bytes, const std::string& what) {
  ::onnx::ModelProto proto;
  STRATA_CHECK(proto.ParseFromString(bytes), what, ": not an ONNX model (the protobuf does not parse)");
  STRATA_CHECK(proto.has_graph(), what, ": the ONNX model has no graph");
  for (const auto& op : proto.opset_import()) {
    if (!op.domain().empty() && op.domain() != "ai.onnx") continue;  // unused domains are harmless; nodes are checked
    STRATA_CHECK(op.version() >= 11 && op.version() <= 21, what, ": opset ", op.version(),
                 " is not supported (11 to 21 are)");
  }
  const std::string name = proto.graph().name().empty() ? "onnx_model" : proto.graph().name();
  try {
    return detail::Importer(proto.graph(), what).run(name);
  } catch (const nlohmann::json::exception& e) {
    throw Error(what + ": " + e.what());
  }
}

std::shared_ptr<nn::Model> load_onnx(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  STRATA_CHECK(!ec, "cannot read '", path, "': ", ec.message());
  // protobuf's own limit: a message over 2 GiB does not parse (weights kept outside are refused)
  STRATA_CHECK(size < (uint64_t{1} << 31), path, ": ", size, " bytes is more than an ONNX protobuf can hold (2 GiB)");
  std::ifstream f(path, std::ios::binary);
  STRATA_CHECK(f.good(), "cannot read '", path, "'");
  std::ostringstream bytes;
  bytes << f.rdbuf();
  return from_onnx(bytes.str(), path);
}

}  // namespace strata::onnx
