// Layer configs: a layer as JSON {"class": kind, "name": ..., "config": {constructor arguments}}
// and back, through a registry of layer classes keyed by kind(). Whole-model files
// (Model::save / Model::load) are built on it. A layer class joins with, in its .cpp:
//   void Dense::get_config(nlohmann::json& c) const { c = {{"units", units_}, ...}; }
//   STRATA_LAYER_CLASS("dense", [](const nlohmann::json& c, const std::string& name) {
//     return std::make_shared<Dense>(c.at("units").get<int64_t>(), ..., name);
//   });
// This header includes nlohmann/json.hpp: include it from sources, not from public headers.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "strata/nn/activation.hpp"
#include "strata/nn/layer.hpp"
#include "strata/ops/conv.hpp"
#include "strata/ops/pool.hpp"

namespace strata::nn {

// Builds a layer of one class from its config and name (weights are created at its first call).
using LayerFactory = std::function<std::shared_ptr<Layer>(const nlohmann::json& config, const std::string& name)>;

// Registers a class under `kind` (a static object per class; a second one for a kind throws).
struct LayerClass {
  LayerClass(const std::string& kind, LayerFactory factory);
};
#define STRATA_LAYER_CLASS_CAT2(a, b) a##b
#define STRATA_LAYER_CLASS_CAT(a, b) STRATA_LAYER_CLASS_CAT2(a, b)
#define STRATA_LAYER_CLASS(kind, ...) \
  static const ::strata::nn::LayerClass STRATA_LAYER_CLASS_CAT(strata_layer_class_, __LINE__)(kind, __VA_ARGS__)

bool is_registered_layer_class(const std::string& kind);
std::vector<std::string> registered_layer_classes();

// {"class", "name", "config"}. Throws strata::Error naming the layer when its class is not
// registered or its config cannot be written (an unnamed activation or function).
nlohmann::json layer_config(const Layer& layer);
// The layer a layer_config describes. Throws strata::Error naming the layer and its class for an
// unknown class, a missing or mistyped argument, or arguments the constructor refuses.
std::shared_ptr<Layer> layer_from_config(const nlohmann::json& config);

// --- helpers for get_config and factories ---
// The activation's name ("" for none); throws naming `owner` for an unnamed function.
std::string activation_name(const Activation& act, const Layer& owner);
nlohmann::json padding_config(const Padding& padding);
Padding padding_from(const nlohmann::json& config);
nlohmann::json conv_options_config(const ConvOptions& options);
ConvOptions conv_options_from(const nlohmann::json& config);
nlohmann::json pool_options_config(const PoolOptions& options);
PoolOptions pool_options_from(const nlohmann::json& config);
std::vector<int64_t> dims_of(const nlohmann::json& config);  // a JSON list of integers
std::string dtype_config(DType dtype);
// A Lambda's registered function name; throws naming `owner` when it wraps an unregistered one.
std::string lambda_function_name(const std::string& function, const Layer& owner);
// A Lambda's own weights as [{"name", "shape", "dtype"}] and back (as zeros: their values are
// in the weights file).
nlohmann::json lambda_weights_config(const std::vector<std::pair<std::string, Tensor>>& weights);
std::vector<std::pair<std::string, Tensor>> lambda_weights_from(const nlohmann::json& config);
DType dtype_from(const nlohmann::json& config);

}  // namespace strata::nn
