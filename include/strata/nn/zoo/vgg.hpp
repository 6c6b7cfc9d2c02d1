// VGG16 / VGG19 (Simonyan & Zisserman) as static models, with TensorLayer's layer names
// (conv1_1 ... conv5_3, pool1 ... pool5, flatten, fc1_relu, fc2_relu, outputs) so that
// TensorLayer's vgg16_weights .npz loads by order (its names sorted, as TensorLayer does; then
// nn::assign_weights). Input [-1, 224, 224, 3]. The dynamic model of the same layers is
// zoo::VGG (vgg_module.hpp).
#pragma once
#include <memory>
#include <string>

#include "strata/nn/model.hpp"

namespace strata::nn::zoo {

// end_with: the last layer kept (TensorLayer's end_with), e.g. "fc2_relu" for features;
// "outputs" (the default) is the 1000-way softmax.
std::shared_ptr<Model> vgg16(const std::string& end_with = "outputs", const Shape& input = {-1, 224, 224, 3});
std::shared_ptr<Model> vgg19(const std::string& end_with = "outputs", const Shape& input = {-1, 224, 224, 3});

}  // namespace strata::nn::zoo
