#include "strata/nn/zoo/vgg_module.hpp"

#include "vgg_layers.hpp"

namespace strata::nn::zoo {

VGG::VGG(int depth, const std::string& end_with, std::string name)
    : Module(name.empty() ? "vgg" + std::to_string(depth) : std::move(name)), layers_(vgg_layers(depth, end_with)) {}

Tensor VGG::forward(const Tensor& x) {
  Tensor h = x;
  for (auto& layer : layers_) h = (*layer)(h);
  return h;
}

}  // namespace strata::nn::zoo
