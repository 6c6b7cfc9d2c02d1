// Layer configs: a layer as JSON {"class": kind, "name": ..., "config": {its options}} and back,
// through a registry of layer classes keyed by kind(). Whole-model files (Model::save /
// Model::load) are built on it. A layer class joins with its declared options
// (nn/options.hpp), in its .cpp:
//   STRATA_DEFINE_OPTIONS(DenseOptions, STRATA_DENSE_OPTIONS)
//   STRATA_LAYER("dense", Dense);
// This header includes nlohmann/json.hpp: include it from sources, not from public headers.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "strata/nn/layer.hpp"
#include "strata/nn/layers/activation.hpp"
#include "strata/ops/conv.hpp"
#include "strata/ops/pool.hpp"

namespace strata::nn {

// Builds a layer of one class from its config and name (weights are created at its first call).
using LayerFactory = std::function<std::shared_ptr<Layer>(const nlohmann::json& config, const std::string& name)>;

using LayerWriter = std::function<nlohmann::json(const Layer& layer)>;
struct OptionTable;  // nn/option_table.hpp

// How a class is rebuilt and written: its factory, its config writer and, for classes whose
// options are declared (STRATA_LAYER in nn/option_table.hpp), their field table.
struct LayerClassEntry {
  LayerFactory make;
  LayerFactory make_in_code;  // from options code gives (initializers too); empty: as make
  LayerWriter write;
  // The field table, built at its first use rather than when the library loads; null for a
  // class without declared options.
  const OptionTable& (*options)() = nullptr;
  std::string class_name;  // the C++ class ("Dense"), which the Python package names too
};

// Registers a class under `kind` (a static object per class; a second one for a kind throws).
struct LayerClass {
  LayerClass(const std::string& kind, LayerClassEntry entry);
};
#define STRATA_LAYER_CLASS_CAT2(a, b) a##b
#define STRATA_LAYER_CLASS_CAT(a, b) STRATA_LAYER_CLASS_CAT2(a, b)
#define STRATA_LAYER_CLASS(kind, ...) \
  static const ::strata::nn::LayerClass STRATA_LAYER_CLASS_CAT(strata_layer_class_, __COUNTER__)(kind, __VA_ARGS__)

bool is_registered_layer_class(const std::string& kind);
std::vector<std::string> registered_layer_classes();
// The declared options of a registered class; nullptr for an unknown class or one without
// declared options (a static model, whose config is its graph).
const OptionTable* layer_options(const std::string& kind);
// The C++ class name registered for `kind` ("Dense" for "dense"); "" for an unknown kind.
std::string layer_class_name(const std::string& kind);

// {"class", "name", "config"}. Throws strata::Error naming the layer when its class is not
// registered or its config cannot be written (an unnamed activation or function).
nlohmann::json layer_config(const Layer& layer);
// The layer a layer_config describes. Throws strata::Error naming the layer and its class for an
// unknown class, a missing or mistyped argument, or arguments the constructor refuses.
std::shared_ptr<Layer> layer_from_config(const nlohmann::json& config);
// A layer of `kind` from options given by code rather than read from a file (the Python
// package's keyword arguments): as layer_from_config, and initializers may be given by name.
std::shared_ptr<Layer> layer_from_code_options(const std::string& kind, const std::string& name,
                                               const nlohmann::json& options);

// --- helpers for code that reads layer configs (the ONNX exporter, the model file) ---
ConvOptions conv_options_from(const nlohmann::json& config);
PoolOptions pool_options_from(const nlohmann::json& config);
std::vector<int64_t> dims_of(const nlohmann::json& config);  // a JSON list of integers
std::string dtype_config(DType dtype);
DType dtype_from(const nlohmann::json& config);
// A Lambda's own weights as [{"name", "shape", "dtype"}] and back (as zeros: their values are
// in the weights file).
nlohmann::json lambda_weights_config(const std::vector<std::pair<std::string, Tensor>>& weights);
std::vector<std::pair<std::string, Tensor>> lambda_weights_from(const nlohmann::json& config);

}  // namespace strata::nn
