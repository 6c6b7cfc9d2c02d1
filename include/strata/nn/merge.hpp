// Layers that merge several inputs, called with a list: Concat (TensorLayer's Concat) and
// Elementwise (TensorLayer's Elementwise: add, multiply, maximum, minimum, mean or any function).
#pragma once
#include <functional>

#include "strata/nn/activation.hpp"
#include "strata/nn/layer.hpp"

namespace strata::nn {

// concat({a, b}) joins along concat_dim (-1: the channels). After the first call the number of
// inputs and their ranks are fixed.
class Concat : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Concat)
  void get_config(nlohmann::json& config) const override;
  explicit Concat(int64_t concat_dim = -1, std::string name = "");

 protected:
  void build_many(const std::vector<Shape>& input_shapes) override;
  Tensor forward_many(const std::vector<Tensor>& xs) override;
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  int64_t concat_dim_;
  size_t n_inputs_ = 0;
  int rank_ = 0;
};

// act(x0 ∘ x1 ∘ ...) for inputs of one shape; after the first call every input must keep the
// shape it had then, but for the batch axis.
class Elementwise : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Elementwise)
  void get_config(nlohmann::json& config) const override;
  using CombineFn = std::function<Tensor(const Tensor&, const Tensor&)>;
  // combine: "add", "multiply", "maximum", "minimum" or "mean".
  explicit Elementwise(const std::string& combine = "add", Activation act = {}, std::string name = "");
  // Any binary function, folded left over the inputs (TensorLayer's combine_fn).
  explicit Elementwise(CombineFn combine, Activation act = {}, std::string name = "");

 protected:
  void build_many(const std::vector<Shape>& input_shapes) override;
  Tensor forward_many(const std::vector<Tensor>& xs) override;
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  CombineFn fn_;
  std::string combine_;  // the name it was made from; empty for a function
  bool mean_ = false;
  Activation act_;
  std::vector<Shape> shapes_;
};

// Any function of several tensors as a layer (TensorLayer's ElementwiseLambda), with optional
// weights of its own that the function receives and that train with the model:
//   ElementwiseLambda([](auto& xs, auto& w) { return xs[0] * w[0] + xs[1]; }, {{"alpha", ones({1})}})
class ElementwiseLambda : public Layer {
 public:
  STRATA_LAYER_MOVABLE(ElementwiseLambda)
  void get_config(nlohmann::json& config) const override;
  using Fn = std::function<Tensor(const std::vector<Tensor>& xs, const std::vector<Tensor>& weights)>;
  // The weights' values are their initial values (copied at the first call).
  explicit ElementwiseLambda(Fn fn, std::vector<std::pair<std::string, Tensor>> weights = {}, std::string name = "");
  // A function registered with nn::register_function (nn/functions.hpp): a saved model holds
  // its name.
  explicit ElementwiseLambda(const std::string& function, std::vector<std::pair<std::string, Tensor>> weights = {},
                             std::string name = "");

 protected:
  void build_many(const std::vector<Shape>& input_shapes) override;
  Tensor forward_many(const std::vector<Tensor>& xs) override;
  void build(const Shape& input_shape) override { build_many({input_shape}); }
  Tensor forward(const Tensor& x) override { return forward_many({x}); }

 private:
  Fn fn_;
  std::string function_;  // the registered name, if made from one
  std::vector<std::pair<std::string, Tensor>> initial_;
  std::vector<Tensor> weights_;
};

}  // namespace strata::nn
