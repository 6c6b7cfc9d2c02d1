// The sum of two gradients of one tensor (used twice, or accumulated into .grad()).
#pragma once
#include "strata/core/tensor.hpp"

namespace strata::autograd {

// a + b, out of place (`a` may alias a tensor held elsewhere); under create_graph a recorded
// op, so a gradient summed from several uses stays differentiable.
Tensor sum_gradients(const Tensor& a, const Tensor& b);

}  // namespace strata::autograd
