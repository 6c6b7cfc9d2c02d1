// Lambda: any function of a tensor as a layer (TensorLayer's Lambda / ElementwiseLambda), with
// optional weights of its own that the function receives and that train with the model.
#pragma once
#include <functional>

#include "strata/nn/layer.hpp"

namespace strata::nn {

class Lambda : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Lambda)
  void get_config(nlohmann::json& config) const override;
  using Fn = std::function<Tensor(const Tensor& x, const std::vector<Tensor>& weights)>;
  // Without weights: Lambda([](const Tensor& x) { return x * 2.0; }).
  explicit Lambda(std::function<Tensor(const Tensor&)> fn, std::string name = "");
  // With trainable weights created once (their values are initial values).
  Lambda(Fn fn, std::vector<std::pair<std::string, Tensor>> weights, std::string name = "");
  // A function registered with nn::register_function (nn/functions.hpp), by name: the only
  // kind of Lambda a saved model can hold (it keeps the name, never code).
  explicit Lambda(const std::string& function, std::vector<std::pair<std::string, Tensor>> weights = {},
                  std::string name = "");
  explicit Lambda(const char* function) : Lambda(std::string(function)) {}

 protected:
  void build(const Shape&) override;
  Tensor forward(const Tensor& x) override;

 private:
  Fn fn_;
  std::string function_;  // the registered name, if made from one
  std::vector<std::pair<std::string, Tensor>> initial_;
  std::vector<Tensor> weights_;
};

}  // namespace strata::nn
