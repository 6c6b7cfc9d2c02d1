// VGG16 / VGG19 as a dynamic model (PyTorch style, nn::Module): the layers and names of the
// static zoo::vgg16 / vgg19 (one architecture table behind both), built at the first call
// from the input's shape, so any input size whose features fit the first dense layer works,
// and end_with (TensorLayer's) stops after the named layer. The same weights (by name or
// by order) give the same outputs as the static model.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "strata/nn/layer.hpp"

namespace strata::nn::zoo {

class VGG : public Module {
 public:
  // depth 16 or 19; end_with one of conv1_1 ... pool5, flatten, fc1_relu, fc2_relu, outputs.
  // The name defaults to "vgg16" / "vgg19". Throws strata::Error for another depth or end_with.
  explicit VGG(int depth = 16, const std::string& end_with = "outputs", std::string name = "");

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  std::vector<std::shared_ptr<Layer>> layers_;
};

}  // namespace strata::nn::zoo
