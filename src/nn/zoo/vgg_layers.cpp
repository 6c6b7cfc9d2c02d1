#include "vgg_layers.hpp"

#include <algorithm>

#include "strata/nn/layers/conv.hpp"
#include "strata/nn/layers/dense.hpp"
#include "strata/nn/layers/pool.hpp"
#include "strata/nn/layers/shape.hpp"

namespace strata::nn::zoo {

std::vector<std::shared_ptr<Layer>> vgg_layers(int depth, const std::string& end_with) {
  STRATA_CHECK(depth == 16 || depth == 19, "vgg: depth 16 or 19, got ", depth);
  // convs[b] 3x3 SAME convolutions of filters[b] channels in block b, each block ending in a
  // 2x2 stride-2 pool.
  const int convs16[] = {2, 2, 3, 3, 3}, convs19[] = {2, 2, 4, 4, 4};
  const int* convs = depth == 16 ? convs16 : convs19;
  const int64_t filters[] = {64, 128, 256, 512, 512};
  std::vector<std::shared_ptr<Layer>> layers;
  for (int b = 0; b < 5; ++b) {
    for (int c = 1; c <= convs[b]; ++c)
      layers.push_back(std::make_shared<Conv2d>(filters[b], SpatialSizes{3, 3}, "relu", Conv2d::same_padding(),
                                                "conv" + std::to_string(b + 1) + "_" + std::to_string(c)));
    layers.push_back(std::make_shared<MaxPool2d>(SpatialSizes{2, 2},
                                                 PoolOptions{.stride = {2, 2}, .padding = Padding::same()},
                                                 "pool" + std::to_string(b + 1)));
  }
  layers.push_back(std::make_shared<Flatten>("flatten"));
  layers.push_back(std::make_shared<Dense>(4096, "relu", "fc1_relu"));
  layers.push_back(std::make_shared<Dense>(4096, "relu", "fc2_relu"));
  layers.push_back(std::make_shared<Dense>(1000, "softmax", "outputs"));
  auto end = std::find_if(layers.begin(), layers.end(), [&](auto& l) { return l->name() == end_with; });
  STRATA_CHECK(end != layers.end(), "vgg", depth, ": end_with '", end_with,
               "' is not one of its layers (conv1_1 ... outputs)");
  layers.erase(end + 1, layers.end());
  return layers;
}

}  // namespace strata::nn::zoo
