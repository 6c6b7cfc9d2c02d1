// Lambda: any function of a tensor as a layer (TensorLayer's Lambda / ElementwiseLambda), with
// optional weights of its own that the function receives and that train with the model.
#pragma once
#include <functional>

#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

namespace strata::nn {

// The function of a Lambda or ElementwiseLambda by name: one registered with
// nn::register_function (nn/functions.hpp), which a saved model keeps (names, never code). A
// layer made from a C++ function has no name (code()): a model holding it cannot be saved.
struct FunctionName {
  FunctionName() = default;
  FunctionName(std::string name) : name(std::move(name)) {}  // NOLINT: implicit by design
  FunctionName(const char* name) : name(name) {}            // NOLINT: implicit by design
  static FunctionName code() {
    FunctionName f;
    f.is_code = true;
    return f;
  }
  std::string name;
  bool is_code = false;  // made from a C++ function
};

// A Lambda's own weights: names and initial values (a model file keeps names, shapes and
// dtypes; the values are in its weights).
using LambdaWeights = std::vector<std::pair<std::string, Tensor>>;

// The options of Lambda and ElementwiseLambda (the same keys).
#define STRATA_LAMBDA_OPTIONS(X)                                                               \
  X(FunctionName, function, {}, any(), "a function registered with nn::register_function")    \
  X(LambdaWeights, weights, {}, any(),                                                         \
    "the layer's own weights, [{name, shape, dtype}], passed to the function after the inputs")
STRATA_OPTIONS(LambdaOptions, STRATA_LAMBDA_OPTIONS);

class Lambda : public Layer {
 public:
  using Options = LambdaOptions;
  STRATA_LAYER_MOVABLE(Lambda)
  using Fn = std::function<Tensor(const Tensor& x, const std::vector<Tensor>& weights)>;
  // A registered function by name: the only kind of Lambda a saved model can hold.
  explicit Lambda(Options options, std::string name = "");
  // Without weights: Lambda([](const Tensor& x) { return x * 2.0; }).
  explicit Lambda(std::function<Tensor(const Tensor&)> fn, std::string name = "");
  // With trainable weights created once (their values are initial values).
  Lambda(Fn fn, std::vector<std::pair<std::string, Tensor>> weights, std::string name = "");
  // A function registered with nn::register_function (nn/functions.hpp), by name: the only
  // kind of Lambda a saved model can hold (it keeps the name, never code).
  explicit Lambda(const std::string& function, std::vector<std::pair<std::string, Tensor>> weights = {},
                  std::string name = "")
      : Lambda(Options{.function = function, .weights = std::move(weights)}, std::move(name)) {}
  explicit Lambda(const char* function) : Lambda(std::string(function)) {}
  const Options& options() const { return options_; }

 protected:
  void build(const Shape&) override;
  Tensor forward(const Tensor& x) override;

 private:
  Fn fn_;
  Options options_;  // weights: their initial values
  std::vector<Tensor> weights_;
};

}  // namespace strata::nn
