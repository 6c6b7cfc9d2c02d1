// Internal: VGG's layer list, the one architecture table behind the static models (vgg.cpp)
// and the dynamic VGG module (vgg_module.cpp).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "strata/nn/layer.hpp"

namespace strata::nn::zoo {

// VGG16 or VGG19's layers in order, with TensorLayer's names (conv1_1 ... conv5_3|4, pool1 ...
// pool5, flatten, fc1_relu, fc2_relu, outputs), up to and including end_with. Throws
// strata::Error for another depth or an end_with that is not one of the names.
std::vector<std::shared_ptr<Layer>> vgg_layers(int depth, const std::string& end_with);

}  // namespace strata::nn::zoo
