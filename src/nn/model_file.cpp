// A static model's architecture as JSON and whole-model files (architecture + weights in one
// safetensors file). The graph config lists each layer once (shared layers are one entry used by
// several nodes) and the nodes in execution order; value slots are the inputs, then each node's
// output in order, so a node's arguments always refer to earlier slots.
#include <map>
#include <set>

#include "strata/core/limits.hpp"
#include "strata/io/safetensors.hpp"
#include "strata/nn/layer_config.hpp"
#include "strata/nn/load_weights.hpp"
#include "strata/nn/model.hpp"
#include "weight_budget.hpp"

namespace strata::nn {
namespace {

constexpr const char* kFormat = "strata.model";
constexpr int kVersion = 1;
constexpr const char* kMetadataKey = "strata.model";

int slot_at(const nlohmann::json& v, size_t available, const std::string& what) {
  STRATA_CHECK(v.is_number_integer(), what, ": expected a value slot (an integer), got ", v.dump());
  const int64_t s = v.get<int64_t>();
  STRATA_CHECK(s >= 0 && static_cast<size_t>(s) < available, what, ": slot ", s, " is not among the ", available,
               " values defined before it");
  return static_cast<int>(s);
}

}  // namespace

void Model::graph_config(nlohmann::json& config) const {
  nlohmann::json inputs = nlohmann::json::array(), layers = nlohmann::json::array(), nodes = nlohmann::json::array();
  for (size_t i = 0; i < input_shapes_.size(); ++i) {
    const Shape& s = input_shapes_[i];
    inputs.push_back({{"name", input_names_[i]},
                      {"shape", std::vector<int64_t>(s.begin(), s.end())},
                      {"dtype", dtype_config(input_dtypes_[i])}});
  }
  std::map<const Layer*, size_t> index;
  for (const Step& step : steps_) {
    auto [it, fresh] = index.emplace(step.layer, layers.size());
    if (fresh) layers.push_back(layer_config(*step.layer));
    nodes.push_back({{"layer", it->second}, {"args", step.args}});
  }
  config = {{"inputs", inputs}, {"layers", layers}, {"nodes", nodes}, {"outputs", output_slots_}};
}

std::shared_ptr<Model> Model::from_config(const nlohmann::json& c, const std::string& name) {
  std::vector<Symbol> values, inputs, outputs;
  for (const auto& in : c.at("inputs")) {
    const Shape shape(dims_of(in.at("shape")));
    const std::string input_name = in.value("name", std::string("input"));
    const DType dtype = in.contains("dtype") ? dtype_from(in["dtype"]) : kFloat32;
    // Shape inference may run a layer on real batch-1 zeros of this shape.
    Shape batch_one = shape;
    if (batch_one.size() > 0 && batch_one[0] == -1) batch_one[0] = 1;
    const std::string what = "model '" + name + "', input '" + input_name + "' of shape " + shape.str();
    check_limit(what, "tensor bytes", detail::tensor_bytes(batch_one, dtype, what), "max_tensor_bytes",
                limits().max_tensor_bytes);
    inputs.push_back(Input(shape, input_name, dtype));
    values.push_back(inputs.back());
  }
  std::vector<std::shared_ptr<Layer>> layers;
  for (const auto& l : c.at("layers")) layers.push_back(layer_from_config(l));
  for (const auto& node : c.at("nodes")) {
    const nlohmann::json& li = node.at("layer");
    STRATA_CHECK(li.is_number_integer() && li.get<int64_t>() >= 0 && li.get<size_t>() < layers.size(),
                 "model '", name, "': node ", values.size(), " names layer ", li.dump(), " of ", layers.size());
    Layer& layer = *layers[li.get<size_t>()];
    std::vector<Symbol> args;
    for (const auto& a : node.at("args"))
      args.push_back(values[slot_at(a, values.size(), "model '" + name + "', layer '" + layer.name() + "'")]);
    STRATA_CHECK(!args.empty(), "model '", name, "': layer '", layer.name(), "' is called with no arguments");
    values.push_back(args.size() == 1 ? layer(args[0]) : layer(args));
  }
  for (const auto& o : c.at("outputs")) outputs.push_back(values[slot_at(o, values.size(), "model '" + name + "' output")]);
  auto model = std::make_shared<Model>(inputs, outputs, name);
  model->owned_.insert(model->owned_.end(), layers.begin(), layers.end());
  return model;
}

// The one registered class without declared options: its config is its graph.
static const LayerClass model_class(
    "model", LayerClassEntry{.make = [](const nlohmann::json& c, const std::string& name) -> std::shared_ptr<Layer> {
                               return Model::from_config(c, name);
                             },
                             .write =
                                 [](const Layer& layer) {
                                   nlohmann::json config;
                                   dynamic_cast<const Model&>(layer).graph_config(config);
                                   return config;
                                 },
                             .class_name = "Model"});

std::string Model::to_json() const {
  return nlohmann::json{{"format", kFormat}, {"version", kVersion}, {"model", layer_config(*this)}}.dump();
}

std::shared_ptr<Model> Model::from_json(const std::string& architecture) {
  check_json_depth(architecture, "model architecture");  // before parsing: factories and error dumps recurse
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(architecture);
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("model architecture: not valid JSON (") + e.what() + ")");
  }
  STRATA_CHECK(doc.is_object() && doc.value("format", std::string()) == kFormat, "model architecture: expected {\"format\": \"",
               kFormat, "\", ...}, got ", doc.dump().substr(0, 120));
  STRATA_CHECK(doc.value("version", 0) == kVersion, "model architecture: version ", doc.value("version", 0),
               " is not supported (this build reads version ", kVersion, ")");
  STRATA_CHECK(doc.contains("model") && doc["model"].is_object() && doc["model"].value("class", std::string()) == "model",
               "model architecture: \"model\" must be a layer config of class \"model\"");
  const uint64_t limit = limits().max_tensor_bytes;
  detail::WeightBudget budget(limit, "max_tensor_bytes = " + std::to_string(limit) +
                                         " for all the weights of a model read from a config (set "
                                         "STRATA_MAX_TENSOR_BYTES to raise it)");
  std::shared_ptr<Layer> layer = layer_from_config(doc["model"]);
  return std::static_pointer_cast<Model>(layer);
}

void Model::save(const std::string& path) const {
  const std::string architecture = to_json();  // first: an unsavable layer fails before any file is written
  auto weights = named_weights();
  std::set<std::string> names;
  for (const auto& [n, t] : weights)
    STRATA_CHECK(names.insert(n).second, name(), ": two different weights are named '", n,
                 "' (two layers share a name); give the layers distinct names to save the model");
  io::save_safetensors(path, weights, {{kMetadataKey, architecture}});
}

std::shared_ptr<Model> Model::load(const std::string& path) {
  io::Safetensors file = io::load_safetensors(path);
  auto it = file.metadata.find(kMetadataKey);
  STRATA_CHECK(it != file.metadata.end(), path, ": not a whole-model file (no \"", kMetadataKey,
               "\" in its __metadata__); a weights-only file loads into a model with nn::load_weights");
  // The architecture's weights are all in the file: it may not make more bytes than the file holds.
  uint64_t file_bytes = 0;
  for (const auto& [n, t] : file.tensors) file_bytes += t.nbytes();
  detail::WeightBudget budget(file_bytes, "the " + std::to_string(file_bytes) + " bytes of tensors in " + path +
                                              ": the file lacks weights or holds them in other shapes");
  std::shared_ptr<Model> model;
  try {
    model = from_json(it->second);
  } catch (const LimitError& e) {
    throw LimitError(path + ": " + e.what());
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  const size_t expected = model->named_weights().size();
  // A model without weights (reshapes, registered functions) has nothing to assign.
  const size_t assigned = expected == 0 && file.tensors.empty() ? 0 : assign_weights_by_name(*model, file.tensors);
  STRATA_CHECK(assigned == expected, path, ": the model has ", expected, " weights but the file holds ", assigned,
               " of them");
  return model;
}

}  // namespace strata::nn
