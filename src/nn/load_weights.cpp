#include "strata/nn/load_weights.hpp"

#include <map>

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/error.hpp"
#include "strata/io/safetensors.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::nn {
namespace {

void assign(const Layer& layer, const std::string& name, Tensor& dst, const Tensor& src) {
  STRATA_CHECK(src.defined(), "assign_weights: ", layer.name(), ": the value for '", name, "' is undefined");
  STRATA_CHECK(src.shape() == dst.shape(), "assign_weights: ", layer.name(), ": weight '", name, "' has shape ",
               dst.shape().str(), ", the file's value has shape ", src.shape().str());
  NoGradGuard no_grad;
  copy_(dst, src);
}

std::vector<std::pair<std::string, Tensor>> built_weights(const Layer& layer) {
  auto named = layer.named_weights();
  STRATA_CHECK(!named.empty() || layer.built(), "assign_weights: ", layer.name(),
               " has no weights yet; build it first (call it once on an input)");
  return named;
}

std::string without_output_index(const std::string& name) {
  return name.size() > 2 && name.compare(name.size() - 2, 2, ":0") == 0 ? name.substr(0, name.size() - 2) : name;
}

}  // namespace

void assign_weights(Layer& layer, const std::vector<Tensor>& weights) {
  auto named = built_weights(layer);
  STRATA_CHECK(named.size() == weights.size(), "assign_weights: ", layer.name(), " has ", named.size(),
               " weights, ", weights.size(), " were given");
  for (size_t i = 0; i < weights.size(); ++i) assign(layer, named[i].first, named[i].second, weights[i]);
}

void assign_weights(Layer& layer, const std::vector<std::pair<std::string, Tensor>>& weights) {
  std::vector<Tensor> values;
  for (const auto& [name, t] : weights) values.push_back(t);
  assign_weights(layer, values);
}

size_t assign_weights_by_name(Layer& layer, const std::vector<std::pair<std::string, Tensor>>& weights,
                              bool skip_unknown) {
  std::map<std::string, Tensor> by_name;
  for (auto& [name, t] : built_weights(layer)) by_name.emplace(name, t);
  size_t assigned = 0;
  for (const auto& [file_name, value] : weights) {
    const std::string name = without_output_index(file_name);
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      STRATA_CHECK(skip_unknown, "assign_weights_by_name: ", layer.name(), " has no weight named '", name,
                   "' (pass skip_unknown to ignore weights the model lacks)");
      continue;
    }
    assign(layer, name, it->second, value);
    ++assigned;
  }
  return assigned;
}

void save_weights(const Layer& layer, const std::string& path) {
  io::save_safetensors(path, built_weights(layer));
}

size_t load_weights(Layer& layer, const std::string& path, bool skip_unknown) {
  return assign_weights_by_name(layer, io::load_safetensors(path).tensors, skip_unknown);
}

}  // namespace strata::nn
