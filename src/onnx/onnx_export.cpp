#include "onnx_export.hpp"

#include <algorithm>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/io/atomic_file.hpp"
#include "strata/nn/layer_config.hpp"
#include "strata/onnx/onnx.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::onnx {

namespace detail {

std::string Exporter::fresh(const std::string& base) {
  const int n = used_[base]++;
  return n == 0 ? base : base + "_" + std::to_string(n);
}

pb::NodeProto& Exporter::node(const std::string& op, const std::vector<std::string>& inputs, const std::string& output) {
  pb::NodeProto* n = graph_.add_node();
  n->set_op_type(op);
  n->set_name(output);
  for (const auto& in : inputs) n->add_input(in);
  n->add_output(output);
  return *n;
}

Tensor Exporter::weight(const std::string& layer, const std::string& name) const {
  auto it = weights_.find(layer + "/" + name);
  STRATA_CHECK(it != weights_.end(), "layer '", layer, "' has no weight '", name, "' to export (is it built?)");
  return it->second;
}

std::string Exporter::initializer(const std::string& name, const Tensor& t) {
  const std::string n = fresh(name);
  set_tensor(*graph_.add_initializer(), n, t);
  return n;
}

std::string Exporter::ints_constant(const std::string& name, const std::vector<int64_t>& values) {
  return initializer(name, from_vector(values));
}

std::string Exporter::float_constant(const std::string& name, float value) {
  return initializer(name, from_vector(std::vector<float>{value}, Shape{}));
}

namespace {
// Channels-last [N, spatial..., C] <-> channels-first [N, C, spatial...].
std::vector<int64_t> to_first(int64_t rank) {
  std::vector<int64_t> p{0, rank - 1};
  for (int64_t i = 1; i < rank - 1; ++i) p.push_back(i);
  return p;
}
std::vector<int64_t> to_last(int64_t rank) {
  std::vector<int64_t> p{0};
  for (int64_t i = 2; i < rank; ++i) p.push_back(i);
  p.push_back(1);
  return p;
}
}  // namespace

const std::string& Exporter::channels_last(Value& v) {
  if (v.last.empty()) {
    if (v.rank <= 2) return v.first;  // one layout
    v.last = fresh(v.first + "_nhwc");
    set_ints(node("Transpose", {v.first}, v.last), "perm", to_last(v.rank));
  }
  return v.last;
}

const std::string& Exporter::channels_first(Value& v) {
  if (v.first.empty()) {
    if (v.rank <= 2) return v.last;
    v.first = fresh(v.last + "_nchw");
    set_ints(node("Transpose", {v.last}, v.first), "perm", to_first(v.rank));
  }
  return v.first;
}

Value Exporter::activation(Value v, const std::string& act, const std::string& layer) {
  if (act.empty()) return v;
  if (act == "softmax") {
    const std::string in = channels_last(v);
    Value out{fresh(layer + "_softmax"), "", v.rank};
    set_int(node("Softmax", {in}, out.last), "axis", -1);
    return out;
  }
  const bool last = !v.last.empty();
  const std::string in = last ? v.last : v.first;
  const std::string out = fresh(layer + "_" + act);
  auto unary = [&](const std::string& op) { return &node(op, {in}, out); };
  auto clip = [&](float lo, float hi) {
    node("Clip", {in, float_constant(layer + "_min", lo), float_constant(layer + "_max", hi)}, out);
  };
  // The activations of the unary list with an ONNX operator of their own (core/unary_ops.hpp's
  // `onnx` column: Relu, Tanh, Selu, Elu with alpha 1, ...).
  const std::span<const UnaryFunction> ops = unary_functions();
  const auto listed = std::find_if(ops.begin(), ops.end(),
                                   [&](const UnaryFunction& u) { return u.activation && *u.onnx && act == u.name; });
  if (listed != ops.end()) unary(listed->onnx);
  else if (act == "relu6") clip(0, 6);
  else if (act == "hard_tanh") clip(-1, 1);
  else if (act == "hard_sigmoid") {  // relu6(x + 3) / 6
    auto* n = unary("HardSigmoid");
    set_float(*n, "alpha", 1.0f / 6);
    set_float(*n, "beta", 0.5f);
  } else if (act == "swish" || act == "silu") {
    const std::string s = fresh(layer + "_sigmoid");
    node("Sigmoid", {in}, s);
    node("Mul", {in, s}, out);
  } else if (act == "mish") {
    const std::string sp = fresh(layer + "_softplus"), t = fresh(layer + "_tanh");
    node("Softplus", {in}, sp);
    node("Tanh", {sp}, t);
    node("Mul", {in, t}, out);
  } else if (act == "gelu") {  // exact: x * (1 + erf(x / sqrt 2)) / 2 (Gelu is opset 20)
    const std::string scaled = fresh(layer + "_scaled"), e = fresh(layer + "_erf"), one = fresh(layer + "_erf1"),
                      half = fresh(layer + "_half");
    node("Mul", {in, float_constant(layer + "_rsqrt2", 0.70710678118654752f)}, scaled);
    node("Erf", {scaled}, e);
    node("Add", {e, float_constant(layer + "_one", 1.0f)}, one);
    node("Mul", {in, float_constant(layer + "_half_c", 0.5f)}, half);
    node("Mul", {half, one}, out);
  } else if (act.rfind("lrelu", 0) == 0 || act.rfind("leaky_relu", 0) == 0) {
    const std::string rest = act.substr(act[1] == 'r' ? 5 : 10);
    set_float(*unary("LeakyRelu"), "alpha", rest.empty() ? 0.2f : std::stof(rest));
  } else {
    throw Error("layer '" + layer + "': activation '" + act + "' has no ONNX form in this exporter");
  }
  return last ? Value{out, "", v.rank} : Value{"", out, v.rank};
}

Value Exporter::layer(const nlohmann::json& l, const std::vector<Value>& args) {
  const std::string kind = l.at("class").get<std::string>(), name = l.at("name").get<std::string>();
  auto it = layer_exports().find(kind);
  STRATA_CHECK(it != layer_exports().end(), "layer '", name, "' of class '", kind,
               "' has no ONNX form (docs/interop.md lists the layers that export)");
  kinds_[name] = kind;
  try {
    return it->second(*this, name, l.at("config"), args);
  } catch (const nlohmann::json::exception& e) {
    throw Error("layer '" + name + "' (" + kind + "): unexpected config (" + e.what() + ")");
  }
}

}  // namespace detail

std::string to_onnx(const nn::Model& model) {
  using namespace detail;
  const nlohmann::json config = nn::layer_config(model).at("config");
  std::map<std::string, Tensor> weights;
  for (auto& [n, t] : model.named_weights())
    STRATA_CHECK(weights.emplace(n, t).second, model.name(), ": two different weights are named '", n,
                 "' (two layers share a name); give the layers distinct names to export the model");
  pb::ModelProto proto;
  proto.set_ir_version(8);  // ONNX 1.12's, which opset 17 belongs to
  proto.set_producer_name("strata");
  proto.set_domain("org.strata");
  auto* opset = proto.add_opset_import();
  opset->set_domain("");
  opset->set_version(kOpset);
  pb::GraphProto& graph = *proto.mutable_graph();
  graph.set_name(model.name());
  Exporter ex(graph, std::move(weights));

  std::vector<Value> values;
  for (const auto& in : config.at("inputs")) {
    const Shape shape(nn::dims_of(in.at("shape")));
    const std::string n = ex.fresh(in.at("name").get<std::string>());
    set_value_info(*graph.add_input(), n, nn::dtype_from(in.at("dtype")), shape);
    values.push_back(Value{n, "", static_cast<int64_t>(shape.size())});
  }
  const auto& layers = config.at("layers");
  for (const auto& node : config.at("nodes")) {
    const nlohmann::json& l = layers.at(node.at("layer").get<size_t>());
    std::vector<Value> args;
    for (const auto& a : node.at("args")) args.push_back(values.at(a.get<size_t>()));
    values.push_back(ex.layer(l, args));
  }
  // Named outputs "output" (or "output_1", ...), channels-last as Strata gives them.
  const auto& outputs = config.at("outputs");
  for (size_t i = 0; i < outputs.size(); ++i) {
    Value v = values.at(outputs[i].get<size_t>());
    const std::string n = ex.fresh(outputs.size() == 1 ? "output" : "output_" + std::to_string(i));
    ex.node("Identity", {ex.channels_last(v)}, n);
    auto* out = graph.add_output();
    out->set_name(n);
    out->mutable_type()->mutable_tensor_type()->set_elem_type(pb::TensorProto::FLOAT);
  }
  std::string bytes;
  STRATA_CHECK(proto.SerializeToString(&bytes), model.name(), ": the ONNX model could not be serialized (over 2 GiB?)");
  return bytes;
}

void save_onnx(const nn::Model& model, const std::string& path) {
  const std::string bytes = to_onnx(model);  // first: a layer without an ONNX form writes no file
  io::AtomicFile file(path);  // a failed save leaves the previous file whole
  file.write(bytes.data(), bytes.size());
  file.commit();
}

}  // namespace strata::onnx

namespace strata::nn {
void Model::export_onnx(const std::string& path) const { onnx::save_onnx(*this, path); }
}  // namespace strata::nn
