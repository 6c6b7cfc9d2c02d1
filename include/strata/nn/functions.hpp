// Named functions: the registry that lets a saved model refer to user code by name (a Lambda's
// function, an activation), since a file never holds code. Register at start-up, before a model
// that uses the name is saved or loaded:
//   nn::register_function("times_two", [](const Tensor& x) { return x * 2.0; });
//   nn::Lambda double_it("times_two");   // saved as {"function": "times_two"}
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::nn {

// Every registered function is kept in this general form: inputs and the layer's own weights.
using NamedFn = std::function<Tensor(const std::vector<Tensor>& xs, const std::vector<Tensor>& weights)>;

// Registers (or replaces) `name`. The three forms: one input; one input and weights (Lambda's
// with weights); several inputs and weights (ElementwiseLambda's).
void register_function(const std::string& name, std::function<Tensor(const Tensor&)> fn);
void register_function(const std::string& name, std::function<Tensor(const Tensor&, const std::vector<Tensor>&)> fn);
void register_function(const std::string& name, NamedFn fn);
bool has_function(const std::string& name);
// Throws strata::Error listing the registered names when `name` is not one.
NamedFn find_function(const std::string& name);

}  // namespace strata::nn
