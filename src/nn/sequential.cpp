#include "strata/nn/sequential.hpp"

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

}  // namespace strata::nn
