// Layers that only change shape: Flatten keeps the batch axis; Reshape takes a shape for the
// axes after the batch (-1 inferred).
#pragma once
#include "strata/nn/layer.hpp"

namespace strata::nn {

class Flatten : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Flatten)
  explicit Flatten(std::string name = "") : Layer("flatten", std::move(name)) {}

 protected:
  Tensor forward(const Tensor& x) override;
};

class Reshape : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Reshape)
  void get_config(nlohmann::json& config) const override;
  explicit Reshape(Shape shape, std::string name = "") : Layer("reshape", std::move(name)), shape_(shape) {}

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Shape shape_;
};

}  // namespace strata::nn
