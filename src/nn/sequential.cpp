#include "strata/nn/sequential.hpp"

#include "strata/nn/layer_config.hpp"

namespace strata::nn {

Sequential::Sequential(std::vector<std::shared_ptr<Layer>> layers, std::string name)
    : Layer("sequential", std::move(name)), layers_(std::move(layers)) {
  for (auto& l : layers_) expect(l != nullptr, "a layer in the list is null");
}

Sequential& Sequential::add(std::shared_ptr<Layer> layer) {
  expect(layer != nullptr, "cannot add a null layer");
  layers_.push_back(std::move(layer));
  return *this;
}

Tensor Sequential::forward(const Tensor& x) {
  Tensor h = x;
  for (auto& l : layers_) h = (*l)(h);
  return h;
}

using nlohmann::json;


void Sequential::get_config(json& c) const {
  json layers = json::array();
  for (const auto& l : layers_) layers.push_back(layer_config(*l));
  c = {{"layers", layers}};
}

STRATA_LAYER_CLASS("sequential", [](const json& c, const std::string& name) {
  std::vector<std::shared_ptr<Layer>> layers;
  for (const auto& l : c.at("layers")) layers.push_back(layer_from_config(l));
  return std::make_shared<Sequential>(std::move(layers), name);
});

}  // namespace strata::nn
