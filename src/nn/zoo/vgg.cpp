#include "strata/nn/zoo/vgg.hpp"

#include <vector>

#include "strata/nn/conv.hpp"
#include "strata/nn/dense.hpp"
#include "strata/nn/pool.hpp"
#include "strata/nn/reshape.hpp"

namespace strata::nn::zoo {
namespace {

// convs[b] 3x3 convolutions of filters[b] channels in block b, each block ending in a 2x2 pool.
std::shared_ptr<Model> vgg(const std::vector<int>& convs, const std::string& end_with, const Shape& shape,
                           const std::string& name) {
  const int64_t filters[] = {64, 128, 256, 512, 512};
  auto x = Input(shape, "input");
  Symbol h = x;
  bool done = false;
  auto add = [&](auto&& layer) {
    if (done) return;
    const std::string layer_name = layer.name();  // before the graph takes the layer
    h = std::move(layer)(h);
    done = layer_name == end_with;
  };
  for (size_t b = 0; b < convs.size(); ++b) {
    for (int c = 1; c <= convs[b]; ++c)
      add(Conv2d(filters[b], {3, 3}, "relu", Conv2d::same_padding(),
                 "conv" + std::to_string(b + 1) + "_" + std::to_string(c)));
    add(MaxPool2d({2, 2}, {.stride = {2, 2}, .padding = Padding::same()}, "pool" + std::to_string(b + 1)));
  }
  add(Flatten("flatten"));
  add(Dense(4096, "relu", "fc1_relu"));
  add(Dense(4096, "relu", "fc2_relu"));
  add(Dense(1000, "softmax", "outputs"));
  STRATA_CHECK(done, name, ": end_with '", end_with, "' is not one of its layers (conv1_1 ... outputs)");
  return std::make_shared<Model>(x, h, name);
}

}  // namespace

std::shared_ptr<Model> vgg16(const std::string& end_with, const Shape& input) {
  return vgg({2, 2, 3, 3, 3}, end_with, input, "vgg16");
}
std::shared_ptr<Model> vgg19(const std::string& end_with, const Shape& input) {
  return vgg({2, 2, 4, 4, 4}, end_with, input, "vgg19");
}

}  // namespace strata::nn::zoo
