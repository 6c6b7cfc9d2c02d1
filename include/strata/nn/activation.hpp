// Activations for layers: any function of a tensor, or a name as TensorLayer spells it
// ("relu", "lrelu0.2", "tanh", "sigmoid", "softmax", "linear", ...).
#pragma once
#include <functional>
#include <string>

#include "strata/core/tensor.hpp"

namespace strata::nn {

using ActivationFn = std::function<Tensor(const Tensor&)>;

// What a layer's `act` argument accepts: nothing (identity), a function, or a name.
class Activation {
 public:
  Activation() = default;
  Activation(ActivationFn fn) : fn_(std::move(fn)) {}  // NOLINT: implicit by design
  // nn::relu, nn::tanh, ... keep their names (for saved models); other pointers are unnamed.
  Activation(Tensor (*fn)(const Tensor&));                // NOLINT
  // A built-in name or a function registered with nn::register_function (nn/functions.hpp).
  Activation(const char* name);                          // NOLINT
  Activation(const std::string& name) : Activation(name.c_str()) {}  // NOLINT
  Tensor operator()(const Tensor& x) const { return fn_ ? fn_(x) : x; }
  explicit operator bool() const { return static_cast<bool>(fn_); }
  // The name it was made from ("" for the identity and for unnamed functions).
  const std::string& name() const { return name_; }

 private:
  ActivationFn fn_;
  std::string name_;
};

// The functional activations under nn:: so that `nn::Dense(10, nn::relu)` reads naturally.
Tensor relu(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor softmax(const Tensor& x);  // over the last axis
Tensor leaky_relu(const Tensor& x);  // slope 0.2, TensorLayer's lrelu

}  // namespace strata::nn
