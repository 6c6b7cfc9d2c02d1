// Numerical gradient checking: compares autograd's gradient of a scalar function with central
// finite differences (use float64 inputs); gradgradcheck does the same for the gradient itself,
// which checks second-order gradients (create_graph).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::autograd {

struct GradcheckResult {
  bool ok = true;
  double max_error = 0;   // max |analytic - numeric| / max(1, |numeric|)
  std::string message;    // which input and element failed, when !ok
};

// f maps the inputs to a tensor; its sum is differentiated w.r.t. every input that requires grad.
GradcheckResult gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& inputs,
                          double eps = 1e-6, double tolerance = 1e-5);

// Checks the gradient of the gradient: with fixed random weights v (for f's output) and u (for
// each input's gradient), h(inputs) = sum_i sum(u_i * d sum(v * f) / d input_i), computed with
// create_graph, is differentiated by autograd and compared with finite differences of h.
GradcheckResult gradgradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                              const std::vector<Tensor>& inputs, double eps = 1e-6, double tolerance = 1e-5);

}  // namespace strata::autograd
