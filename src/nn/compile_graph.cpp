// nn::compile's view of a static model: its graph from Model::graph_config (layers by index,
// each node's argument slots, the outputs) matched to the model's children, which are its
// layers in the order they first run, as graph_config numbers them. No accessor of Model's
// private steps is needed, so model.hpp (reached from the umbrella header) stays as it is.
#include <nlohmann/json.hpp>

#include "compile_plan.hpp"

namespace strata::nn::detail {
namespace {

int slot_of(const nlohmann::json& v, int limit, const std::string& what) {
  STRATA_CHECK(v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() < limit, what, ": slot ", v.dump(),
               " is not one of the ", limit, " values made before it");
  return v.get<int>();
}

}  // namespace

ModelGraph read_graph(const Model& model) {
  const std::string what = "compile: model '" + model.name() + "'";
  nlohmann::json config;
  try {
    model.graph_config(config);
  } catch (const Error& e) {
    throw Error(what + " cannot be compiled: its graph cannot be described (" + e.what() + ")");
  }
  ModelGraph g;
  g.name = model.name();
  for (const auto& in : config.at("inputs")) g.input_shapes.emplace_back(in.at("shape").get<std::vector<int64_t>>());
  const nlohmann::json& layers = config.at("layers");
  const std::vector<Layer*>& children = model.children();
  STRATA_CHECK(layers.size() == children.size(), what, ": its graph names ", layers.size(), " layers but it has ",
               children.size(), " children");
  for (size_t i = 0; i < layers.size(); ++i)
    STRATA_CHECK(layers[i].value("name", std::string()) == children[i]->name(), what, ": layer ", i,
                 " of its graph is '", layers[i].value("name", std::string()), "' but its child ", i, " is '",
                 children[i]->name(), "'");
  for (const auto& node : config.at("nodes")) {
    const int out = g.num_slots();
    const nlohmann::json& li = node.at("layer");
    STRATA_CHECK(li.is_number_integer() && li.get<int64_t>() >= 0 && li.get<size_t>() < children.size(), what,
                 ": node ", out, " names layer ", li.dump());
    GraphStep step{children[li.get<size_t>()], {}};
    for (const auto& a : node.at("args"))
      step.args.push_back(slot_of(a, out, what + ", layer '" + step.layer->name() + "'"));
    STRATA_CHECK(!step.args.empty(), what, ": layer '", step.layer->name(), "' has no arguments");
    g.steps.push_back(std::move(step));
  }
  for (const auto& o : config.at("outputs")) g.outputs.push_back(slot_of(o, g.num_slots(), what + " output"));
  STRATA_CHECK(!g.input_shapes.empty() && !g.outputs.empty(), what, ": no inputs or no outputs");
  return g;
}

void check_inputs(const ModelGraph& graph, const std::vector<Tensor>& inputs, const char* who) {
  STRATA_CHECK(inputs.size() == graph.input_shapes.size(), who, " '", graph.name, "': expects ",
               graph.input_shapes.size(), " inputs, got ", inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    STRATA_CHECK(inputs[i].defined(), who, " '", graph.name, "': input ", i, " is an undefined tensor");
    const Shape &want = graph.input_shapes[i], &got = inputs[i].shape();
    bool ok = got.size() == want.size();
    for (int d = 0; ok && d < want.size(); ++d) ok = want[d] == -1 || want[d] == got[d];
    STRATA_CHECK(ok, who, " '", graph.name, "': input ", i, " should have shape ", want.str(), ", got ", got.str());
  }
}

}  // namespace strata::nn::detail
