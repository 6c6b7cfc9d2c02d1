#include "strata/nn/layer_config.hpp"

#include <map>
#include <mutex>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/core/limits.hpp"
#include "config_numbers.hpp"
#include "weight_budget.hpp"

namespace strata::nn {
namespace {

struct ClassRegistry {
  std::mutex mu;
  std::map<std::string, LayerFactory> factories;
};
ClassRegistry& classes() {
  static ClassRegistry r;
  return r;
}

LayerFactory factory_of(const std::string& kind) {
  ClassRegistry& r = classes();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.factories.find(kind);
  return it == r.factories.end() ? LayerFactory() : it->second;
}

}  // namespace

void Layer::get_config(nlohmann::json& config) const { config = nlohmann::json::object(); }

LayerClass::LayerClass(const std::string& kind, LayerFactory factory) {
  ClassRegistry& r = classes();
  std::lock_guard<std::mutex> lock(r.mu);
  STRATA_CHECK(r.factories.emplace(kind, std::move(factory)).second, "layer class '", kind,
               "' is registered twice");
}

bool is_registered_layer_class(const std::string& kind) { return static_cast<bool>(factory_of(kind)); }

std::vector<std::string> registered_layer_classes() {
  ClassRegistry& r = classes();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> out;
  for (auto& [k, f] : r.factories) out.push_back(k);
  return out;
}

nlohmann::json layer_config(const Layer& layer) {
  STRATA_CHECK(is_registered_layer_class(layer.kind()), layer.name(), " (", layer.kind(),
               "): this layer class is not registered (STRATA_LAYER_CLASS), so a model holding it cannot be "
               "saved whole; a dynamic Module saves its weights by name (nn::save_weights)");
  nlohmann::json config;
  layer.get_config(config);
  return {{"class", layer.kind()}, {"name", layer.name()}, {"config", std::move(config)}};
}

std::shared_ptr<Layer> layer_from_config(const nlohmann::json& entry) {
  STRATA_CHECK(entry.is_object() && entry.contains("class") && entry["class"].is_string(),
               "layer config: expected an object with a string \"class\", got ", entry.dump().substr(0, 200));
  const std::string kind = entry["class"].get<std::string>();
  const std::string name = entry.contains("name") && entry["name"].is_string() ? entry["name"].get<std::string>() : "";
  LayerFactory make = factory_of(kind);
  if (!make) {
    std::string known;
    for (const std::string& k : registered_layer_classes()) known += (known.empty() ? "" : ", ") + k;
    throw Error("layer config: layer '" + name + "' has unknown class '" + kind + "' (registered: " + known + ")");
  }
  // A reference, not a copy: a copy per level of nested layers grows as the square of the depth.
  static const nlohmann::json kNoArguments = nlohmann::json::object();
  const nlohmann::json& config = entry.contains("config") ? entry["config"] : kNoArguments;
  try {
    STRATA_CHECK(config.is_object(), "\"config\" is not an object");
    detail::check_config_numbers(config);
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

std::string activation_name(const Activation& act, const Layer& owner) {
  STRATA_CHECK(!act || !act.name().empty(), owner.name(), " (", owner.kind(),
               "): its activation is an unnamed function, which a saved model cannot hold; give it by name "
               "(\"relu\") or register it with nn::register_function and pass that name");
  return act.name();
}

nlohmann::json padding_config(const Padding& p) {
  switch (p.kind) {
    case Padding::Kind::same: return "same";
    case Padding::Kind::valid: return "valid";
    default: return {{"before", p.before}, {"after", p.after}};
  }
}

Padding padding_from(const nlohmann::json& c) {
  if (c.is_string()) {
    const std::string s = c.get<std::string>();
    if (s == "same" || s == "SAME") return Padding::same();
    if (s == "valid" || s == "VALID") return Padding::valid();
    throw Error("padding: expected \"same\", \"valid\" or {before, after}, got \"" + s + "\"");
  }
  return Padding::explicit_(dims_of(c.at("before")), dims_of(c.at("after")));
}

nlohmann::json conv_options_config(const ConvOptions& o) {
  nlohmann::json c = {
      {"stride", o.stride}, {"padding", padding_config(o.padding)}, {"dilation", o.dilation}, {"groups", o.groups}};
  if (o.fuse_relu) c["fuse_relu"] = true;  // only when a user asked for it: older files lack the key
  return c;
}

ConvOptions conv_options_from(const nlohmann::json& c) {
  ConvOptions o;
  o.stride = dims_of(c.at("stride"));
  o.padding = padding_from(c.at("padding"));
  o.dilation = dims_of(c.at("dilation"));
  o.groups = c.at("groups").get<int64_t>();
  o.fuse_relu = c.value("fuse_relu", false);
  return o;
}

nlohmann::json pool_options_config(const PoolOptions& o) {
  return {{"stride", o.stride}, {"padding", padding_config(o.padding)}};
}

PoolOptions pool_options_from(const nlohmann::json& c) {
  return PoolOptions{.stride = dims_of(c.at("stride")), .padding = padding_from(c.at("padding"))};
}

std::vector<int64_t> dims_of(const nlohmann::json& c) {
  STRATA_CHECK(c.is_array(), "expected a list of integers, got ", c.dump().substr(0, 100));
  return c.get<std::vector<int64_t>>();
}

std::string dtype_config(DType dtype) { return dtype_name(dtype); }

DType dtype_from(const nlohmann::json& c) {
  const std::string s = c.get<std::string>();
  for (DType t : {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBool})
    if (s == dtype_name(t)) return t;
  throw Error("unknown dtype '" + s + "'");
}

std::string lambda_function_name(const std::string& function, const Layer& owner) {
  STRATA_CHECK(!function.empty(), owner.name(), " (", owner.kind(),
               "): wraps an unregistered C++ function, which a saved model cannot hold (it keeps names, never "
               "code); register it with nn::register_function(\"my_fn\", fn) and build the layer from that name");
  return function;
}

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
