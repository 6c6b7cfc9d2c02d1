// convert_sync_batch_norm: the model's architecture as a layer config, every BatchNorm config
// rewritten as a SyncBatchNorm one, a new model built from it and the weights copied by name
// (the layers keep their names, and SyncBatchNorm's weights are BatchNorm's).
#include <nlohmann/json.hpp>

#include "strata/core/error.hpp"
#include "strata/dist/sync_batch_norm.hpp"
#include "strata/nn/layer_config.hpp"
#include "strata/nn/load_weights.hpp"

namespace strata::dist {
namespace {

bool is_batch_norm(const std::string& kind) {
  return kind == "batchnorm" || kind == "batchnorm1d" || kind == "batchnorm2d" || kind == "batchnorm3d";
}

// Rewrites `layer` (a {"class", "name", "config"} object) and the layers it holds: a model's or
// a Sequential's "layers", a wrapper's "layer".
void convert(nlohmann::json& layer) {
  nlohmann::json& config = layer.at("config");
  if (is_batch_norm(layer.at("class").get<std::string>())) {
    layer["class"] = "sync_batchnorm";
    config = {{"decay", config.at("decay")}, {"epsilon", config.at("epsilon")}, {"act", config.at("act")}};
    return;
  }
  if (!config.is_object()) return;
  if (config.contains("layers") && config["layers"].is_array())
    for (nlohmann::json& inner : config["layers"]) convert(inner);
  if (config.contains("layer") && config["layer"].is_object()) convert(config["layer"]);
}

}  // namespace

std::shared_ptr<nn::Model> convert_sync_batch_norm(const nn::Model& model) {
  nlohmann::json architecture = nn::layer_config(model);
  convert(architecture);
  auto converted = std::static_pointer_cast<nn::Model>(nn::layer_from_config(architecture));
  const auto weights = model.named_weights();
  const size_t assigned = nn::assign_weights_by_name(*converted, weights);
  STRATA_CHECK(assigned == weights.size() && assigned == converted->named_weights().size(),
               "dist::convert_sync_batch_norm: ", model.name(), " has ", weights.size(),
               " weights, its converted copy ", converted->named_weights().size(), ", and ", assigned,
               " were copied by name; give its layers distinct names");
  return converted;
}

}  // namespace strata::dist
