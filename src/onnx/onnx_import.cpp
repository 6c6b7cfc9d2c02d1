#include "onnx_import.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "onnx_import_legacy.hpp"
#include "onnx_parsed.hpp"
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

// The default domain's opsets the import reads (files before opset 11 are adapted to it first,
// onnx_import_legacy.cpp). Past 21, an operator is read at an opset only
// while its definition is one the import was written for: the versions below changed more than
// the element types an operator takes (its attributes, inputs, outputs or text), as onnx
// 1.23.2's schemas tell (tests/onnx/make_onnx_ops.py lists them; OnnxOpsets checks this list).
// Not here, because the import follows them: Mod's opset 28 (floats with fmod 0,
// onnx_import_math.cpp), SpaceToDepth's (a mode, onnx_import_shape.cpp) and AveragePool's and
// MaxPool's opset 22 (windows starting in the right padding are dropped: that concerns ceil_mode
// only, which the import refuses).
constexpr int64_t kLastOpset = 28;
const std::map<std::string, int64_t> kChangedAfter21 = {{"Cast", 24}, {"CastLike", 24}, {"Range", 27}};

// Bounds on a hostile graph's structure (its tensors are bounded by max_tensor_bytes).
constexpr int kMaxNodes = 100000;
constexpr int kMaxInputs = 64;
constexpr int kMaxRank = 8;

Shape input_shape(const pb::ValueInfoProto& in, const std::string& what, const std::map<std::string, int64_t>& sizes) {
  const std::string where = what + ": input '" + in.name() + "'";
  STRATA_CHECK(in.type().has_tensor_type() && in.type().tensor_type().has_shape(), where, ": needs a tensor type with a shape");
  const auto& dims = in.type().tensor_type().shape().dim();
  STRATA_CHECK(dims.size() >= 1 && dims.size() <= kMaxRank, where, ": rank ", dims.size(), " (1 to ", kMaxRank, ")");
  Shape shape;
  for (int i = 0; i < dims.size(); ++i) {
    const auto& d = dims[i];
    const auto given = d.has_dim_param() ? sizes.find(d.dim_param()) : sizes.end();
    if (given != sizes.end()) {  // a symbolic size the caller fixed (ImportOptions::sizes)
      STRATA_CHECK(given->second > 0 && given->second <= (int64_t{1} << 31), where, ": the size ", given->second,
                   " given for '", d.dim_param(), "' (axis ", i, ") is not 1 to 2^31");
      shape.push_back(given->second);
      continue;
    }
    if (i == 0 && (!d.has_dim_value() || d.dim_value() < 0)) {
      shape.push_back(-1);  // the batch
      continue;
    }
    STRATA_CHECK(d.has_dim_value() || !d.has_dim_param(), where, ": axis ", i, " is symbolic ('", d.dim_param(),
                 "'): a static model fixes every size but the first axis's (the batch); give it one with "
                 "ImportOptions::sizes, e.g. {\"",
                 d.dim_param(), "\", N}");
    STRATA_CHECK(d.has_dim_value() && d.dim_value() > 0 && d.dim_value() <= (int64_t{1} << 31), where, ": axis ", i,
                 " must have a fixed positive size (only the first, the batch, may be symbolic)");
    shape.push_back(d.dim_value());
  }
  return shape;
}

DType input_dtype(const pb::ValueInfoProto& in, const std::string& what) {
  const int t = in.type().tensor_type().elem_type();
  switch (t) {
    case pb::TensorProto::FLOAT: return kFloat32;
    case pb::TensorProto::DOUBLE: return kFloat64;
    case pb::TensorProto::INT64: return kInt64;
    case pb::TensorProto::INT32: return kInt32;
    case pb::TensorProto::UINT8: return kUInt8;
    case pb::TensorProto::BOOL: return kBool;
    default:
      throw Error(what + ": input '" + in.name() + "' has element type " +
                  (pb::TensorProto::DataType_IsValid(t) ? pb::TensorProto::DataType_Name(t) : std::to_string(t)) +
                  " (float, double, int64, int32, uint8 and bool are supported)");
  }
}

}  // namespace

Tensor scalar(float v) { return from_vector(std::vector<float>{v}, Shape{}); }

void require(bool ok, const Importer& im, const pb::NodeProto& node, const std::string& message) {
  STRATA_CHECK(ok, im.what(), ": ", node_str(node), ": ", message);
}

int64_t last_opset(const std::string& op) {
  const auto it = kChangedAfter21.find(op);
  return it == kChangedAfter21.end() ? kLastOpset : it->second - 1;
}

int64_t axis_attribute(const Importer& im, const pb::NodeProto& node, int64_t fallback, int64_t rank) {
  const int64_t axis = int_attribute(node, "axis", fallback);
  require(axis >= -rank && axis < rank, im, node, "axis " + std::to_string(axis) + " is out of range for rank " +
                                                       std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

Importer::Importer(const pb::GraphProto& graph, const std::string& what, int64_t opset,
                   std::map<std::string, int64_t> sizes)
    : graph_(graph), what_(what), opset_(opset), sizes_(std::move(sizes)) {
  for (const auto& init : graph.initializer())
    add_constant(init.name(), read_tensor(init), init.data_type() == pb::TensorProto::FLOAT16);
  for (const auto& node : graph.node()) used_.insert(node.input().begin(), node.input().end());
  for (const auto& out : graph.output()) used_.insert(out.name());
}

Tensor Importer::read_tensor(const pb::TensorProto& proto) const {
  try {
    return tensor_from(proto);
  } catch (const Error& e) {  // named by the file
    throw Error(what_ + ": " + e.what());
  }
}

void Importer::add_constant(const std::string& name, Tensor t, bool float16) {
  STRATA_CHECK(!name.empty() && constants_.emplace(name, std::move(t)).second, what_, ": constant '", name,
               "' is defined twice or has no name");
  if (float16) float16_.insert(name);
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
  STRATA_CHECK(!float16_.count(node.input(i)) || node.op_type() == "Cast", what_, ": ", node_str(node), ": input '",
               node.input(i), "' is float16, which Strata reads only through a Cast (it computes in float32)");
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
    const Shape shape = input_shape(in, what_, sizes_);
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
      add_constant(node.output(0), read_tensor(v->t()), v->t().data_type() == pb::TensorProto::FLOAT16);
      continue;
    }
    require(opset_ >= first_opset(node.op_type()), *this, node,
            "operator '" + node.op_type() + "' does not exist at opset " + std::to_string(opset_) +
                " (ONNX introduced it at opset " + std::to_string(first_opset(node.op_type())) + ")");
    require(opset_ <= last_opset(node.op_type()), *this, node,
            "operator '" + node.op_type() + "' at opset " + std::to_string(opset_) +
                " is not supported: its definition changed after opset " + std::to_string(last_opset(node.op_type())) +
                ", the last Strata's import reads it at");
    const auto fold = constant_folds().find(node.op_type());
    bool constant = fold != constant_folds().end() && num_inputs(node) > 0;
    for (size_t i = 0; constant && i < num_inputs(node); ++i)
      constant = node.input(static_cast<int>(i)).empty() || constants_.count(node.input(static_cast<int>(i)));
    if (constant) {
      set_constant(node, fold->second(*this, node));
      continue;
    }
    if (!batch_arithmetic(node)) {
      auto it = op_imports().find(node.op_type());
      STRATA_CHECK(it != op_imports().end(), what_, ": ", node_str(node), ": operator '", node.op_type(),
                   "' is not supported by Strata's ONNX import (docs/interop.md lists those that are)");
      it->second(*this, node);
    }
    track_batch_axis(node);
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
  // (A model of weightless layers has nothing to assign.)
  const size_t expected = model->named_weights().size();
  const size_t assigned = expected == 0 ? 0 : nn::assign_weights_by_name(*model, weights_, /*skip_unknown=*/true);
  STRATA_CHECK(assigned == expected, what_, ": ", assigned, " of the model's ", expected, " weights were assigned");
  model->eval();  // an ONNX graph is an inference: batch norms use their moving statistics
  return model;
}

}  // namespace detail

std::shared_ptr<nn::Model> from_onnx(const std::string& bytes, const std::string& what) {
  return from_onnx(bytes, what, ImportOptions{});
}

std::shared_ptr<nn::Model> from_onnx(const std::string& bytes, const std::string& what, const ImportOptions& options) {
  return detail::import_parsed(*detail::parse_onnx(bytes, what), what, options.sizes);
}

namespace detail {

int64_t ParsedOnnx::import_opset() const { return is_adapted ? kAdaptedOpset : opset; }

std::unique_ptr<ParsedOnnx> parse_onnx(const std::string& bytes, const std::string& what) {
  auto parsed = std::make_unique<ParsedOnnx>();
  ::onnx::ModelProto& proto = parsed->proto;
  STRATA_CHECK(proto.ParseFromString(bytes), what, ": not an ONNX model (the protobuf does not parse)");
  STRATA_CHECK(proto.has_graph(), what, ": the ONNX model has no graph");
  int64_t opset = 0;
  for (const auto& op : proto.opset_import()) {
    if (!op.domain().empty() && op.domain() != "ai.onnx") continue;  // unused domains are harmless; nodes are checked
    STRATA_CHECK(op.version() >= kOldestOpset && op.version() <= kLastOpset, what, ": opset ", op.version(),
                 " is not supported (", kOldestOpset, " to ", kLastOpset, " are)");
    opset = op.version();
  }
  STRATA_CHECK(opset > 0, what, ": the model imports no version of the default ONNX domain");
  parsed->opset = opset;
  parsed->name = proto.graph().name().empty() ? "onnx_model" : proto.graph().name();
  if (opset < kAdaptedOpset) {  // each node at its opset-11 definition, read as opset 11 reads it
    try {
      parsed->adapted = adapt_old_graph(proto.graph(), opset, what);
    } catch (const nlohmann::json::exception& e) {
      throw Error(what + ": " + e.what());
    }
    parsed->is_adapted = true;
    proto.clear_graph();  // the adapted copy holds the initializers
  }
  return parsed;
}

std::shared_ptr<nn::Model> import_parsed(const ParsedOnnx& parsed, const std::string& what,
                                         const std::map<std::string, int64_t>& sizes) {
  try {
    return Importer(parsed.graph(), what, parsed.import_opset(), sizes).run(parsed.name);
  } catch (const nlohmann::json::exception& e) {
    throw Error(what + ": " + e.what());
  }
}

std::string read_onnx_file(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  STRATA_CHECK(!ec, "cannot read '", path, "': ", ec.message());
  // protobuf's own limit: a message over 2 GiB does not parse (weights kept outside are refused)
  STRATA_CHECK(size < (uint64_t{1} << 31), path, ": ", size, " bytes is more than an ONNX protobuf can hold (2 GiB)");
  std::ifstream f(path, std::ios::binary);
  STRATA_CHECK(f.good(), "cannot read '", path, "'");
  std::ostringstream bytes;
  bytes << f.rdbuf();
  return bytes.str();
}

}  // namespace detail

std::vector<ImportedOperator> imported_operators() {
  std::set<std::string> ops{"Constant"};
  for (const auto& [op, fn] : detail::op_imports()) ops.insert(op);
  for (const auto& [op, fn] : detail::constant_folds()) ops.insert(op);
  std::vector<ImportedOperator> out;
  for (const std::string& op : ops) out.push_back({op, detail::first_opset(op), detail::last_opset(op)});
  return out;
}

std::shared_ptr<nn::Model> load_onnx(const std::string& path) { return load_onnx(path, ImportOptions{}); }

std::shared_ptr<nn::Model> load_onnx(const std::string& path, const ImportOptions& options) {
  return from_onnx(detail::read_onnx_file(path), path, options);
}

}  // namespace strata::onnx
