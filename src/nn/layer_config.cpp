#include "strata/nn/layer_config.hpp"

#include <map>
#include <mutex>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/core/limits.hpp"
#include "strata/nn/option_table.hpp"
#include "weight_budget.hpp"

namespace strata::nn {
namespace {

struct ClassRegistry {
  std::mutex mu;
  std::map<std::string, LayerClassEntry> entries;
};
ClassRegistry& classes() {
  static ClassRegistry r;
  return r;
}

LayerClassEntry entry_of(const std::string& kind) {
  ClassRegistry& r = classes();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.entries.find(kind);
  return it == r.entries.end() ? LayerClassEntry() : it->second;
}

}  // namespace

LayerClass::LayerClass(const std::string& kind, LayerClassEntry entry) {
  ClassRegistry& r = classes();
  std::lock_guard<std::mutex> lock(r.mu);
  STRATA_CHECK(r.entries.emplace(kind, std::move(entry)).second, "layer class '", kind, "' is registered twice");
}

bool is_registered_layer_class(const std::string& kind) { return static_cast<bool>(entry_of(kind).make); }

std::vector<std::string> registered_layer_classes() {
  ClassRegistry& r = classes();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> out;
  for (auto& [k, e] : r.entries) out.push_back(k);
  return out;
}

const OptionTable* layer_options(const std::string& kind) {
  const LayerClassEntry entry = entry_of(kind);
  return entry.options != nullptr ? &entry.options() : nullptr;
}

std::string layer_class_name(const std::string& kind) { return entry_of(kind).class_name; }

nlohmann::json layer_config(const Layer& layer) {
  STRATA_CHECK(is_registered_layer_class(layer.kind()), layer.name(), " (", layer.kind(),
               "): this layer class is not registered (STRATA_LAYER), so a model holding it cannot be "
               "saved whole; a dynamic Module saves its weights by name (nn::save_weights)");
  nlohmann::json config;
  try {
    config = entry_of(layer.kind()).write(layer);
  } catch (const LimitError& e) {
    throw LimitError(layer.name() + " (" + layer.kind() + "): " + e.what());
  } catch (const Error& e) {
    const std::string what = e.what();
    // Errors that already name the layer (a nested layer's, an activation's) pass unchanged.
    if (what.find(layer.name()) != std::string::npos) throw;
    throw Error(layer.name() + " (" + layer.kind() + "): " + what);
  }
  return {{"class", layer.kind()}, {"name", layer.name()}, {"config", std::move(config)}};
}

namespace {

// Runs `make` on a class's config, errors naming the layer and its class.
std::shared_ptr<Layer> build_layer(const std::string& kind, const std::string& name, const nlohmann::json& config,
                                   bool from_code) {
  const LayerClassEntry cls = entry_of(kind);
  if (!cls.make) {
    std::string known;
    for (const std::string& k : registered_layer_classes()) known += (known.empty() ? "" : ", ") + k;
    throw Error("layer config: layer '" + name + "' has unknown class '" + kind + "' (registered: " + known + ")");
  }
  const LayerFactory& make = from_code && cls.make_in_code ? cls.make_in_code : cls.make;
  try {
    STRATA_CHECK(config.is_object(), "\"config\" is not an object");
    std::shared_ptr<Layer> layer = make(config, name);
    STRATA_CHECK(layer != nullptr, "the factory made nothing");
    return layer;
  } catch (const nlohmann::json::exception& e) {
    throw Error("layer config of '" + name + "' (" + kind + "): " + e.what() + " in " + config.dump().substr(0, 300));
  } catch (const LimitError& e) {
    throw LimitError("layer config of '" + name + "' (" + kind + "): " + e.what());
  } catch (const Error& e) {
    throw Error("layer config of '" + name + "' (" + kind + "): " + e.what());
  }
}

}  // namespace

std::shared_ptr<Layer> layer_from_config(const nlohmann::json& entry) {
  STRATA_CHECK(entry.is_object() && entry.contains("class") && entry["class"].is_string(),
               "layer config: expected an object with a string \"class\", got ", entry.dump().substr(0, 200));
  const std::string kind = entry["class"].get<std::string>();
  const std::string name = entry.contains("name") && entry["name"].is_string() ? entry["name"].get<std::string>() : "";
  // A reference, not a copy: a copy per level of nested layers grows as the square of the depth.
  static const nlohmann::json kNoArguments = nlohmann::json::object();
  return build_layer(kind, name, entry.contains("config") ? entry["config"] : kNoArguments, false);
}

std::shared_ptr<Layer> layer_from_code_options(const std::string& kind, const std::string& name,
                                               const nlohmann::json& options) {
  return build_layer(kind, name, options, true);
}

ConvOptions conv_options_from(const nlohmann::json& c) { return OptionCodec<ConvOptions>::read(c); }

PoolOptions pool_options_from(const nlohmann::json& c) { return OptionCodec<PoolOptions>::read(c); }

std::vector<int64_t> dims_of(const nlohmann::json& c) {
  STRATA_CHECK(c.is_array(), "expected a list of integers, got ", c.dump().substr(0, 100));
  return c.get<std::vector<int64_t>>();
}

std::string dtype_config(DType dtype) { return dtype_name(dtype); }

DType dtype_from(const nlohmann::json& c) { return OptionCodec<DType>::read(c); }

nlohmann::json lambda_weights_config(const std::vector<std::pair<std::string, Tensor>>& weights) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [n, t] : weights)
    out.push_back({{"name", n},
                   {"shape", std::vector<int64_t>(t.shape().begin(), t.shape().end())},
                   {"dtype", dtype_config(t.dtype())}});
  return out;
}

std::vector<std::pair<std::string, Tensor>> lambda_weights_from(const nlohmann::json& config) {
  STRATA_CHECK(config.is_array(), "weights: expected a list, got ", config.dump().substr(0, 100));
  std::vector<std::pair<std::string, Tensor>> out;
  for (const auto& w : config) {
    const Shape shape(dims_of(w.at("shape")));
    const std::string name = w.at("name").get<std::string>();
    const DType dtype = dtype_from(w.at("dtype"));
    // Checked, not charged: the Lambda copies them into its own weights (Layer::add_weight).
    detail::check_weight_size(shape, dtype, name);
    out.emplace_back(name, zeros(shape, dtype));
  }
  return out;
}

}  // namespace strata::nn
