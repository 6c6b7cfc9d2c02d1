#include "strata/nn/zoo/vgg.hpp"

#include "vgg_layers.hpp"

namespace strata::nn::zoo {
namespace {

std::shared_ptr<Model> vgg(int depth, const std::string& end_with, const Shape& shape) {
  auto x = Input(shape, "input");
  Symbol h = x;
  // Moved into the graph (as a temporary would be), which then owns each layer.
  for (auto& layer : vgg_layers(depth, end_with)) h = std::move(*layer)(h);
  return std::make_shared<Model>(x, h, "vgg" + std::to_string(depth));
}

}  // namespace

std::shared_ptr<Model> vgg16(const std::string& end_with, const Shape& input) { return vgg(16, end_with, input); }
std::shared_ptr<Model> vgg19(const std::string& end_with, const Shape& input) { return vgg(19, end_with, input); }

}  // namespace strata::nn::zoo
