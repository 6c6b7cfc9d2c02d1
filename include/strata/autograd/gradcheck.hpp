// Numerical gradient checking: compares autograd's gradient of a scalar function with central
// finite differences (use float64 inputs).
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

}  // namespace strata::autograd
