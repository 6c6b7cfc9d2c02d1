// Dropout: zeroes each element with probability p in training (survivors scaled by 1/(1-p));
// the identity in eval mode.
#pragma once
#include "strata/nn/layer.hpp"

namespace strata::nn {

class Dropout : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Dropout)
  void get_config(nlohmann::json& config) const override;
  // TensorLayer's DropoutLayer takes keep; this takes the drop probability p, as Keras and PyTorch.
  explicit Dropout(double p, std::string name = "");

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  double p_;
};

}  // namespace strata::nn
