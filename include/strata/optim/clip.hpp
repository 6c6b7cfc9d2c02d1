// Gradient clipping, in place on the parameters' .grad(), as torch.nn.utils.clip_grad_norm_ /
// clip_grad_value_. Parameters without a gradient are ignored.
#pragma once
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::optim {

// Scales all gradients together by max_norm / (total_norm + 1e-6) when that is below 1, where
// total_norm is the norm_type-norm of all gradients concatenated (INFINITY: the largest
// |element|). Returns total_norm as it was before clipping; 0 when no parameter has a gradient.
double clip_grad_norm(const std::vector<Tensor>& params, double max_norm, double norm_type = 2);

// Clamps every gradient element into [-clip, clip].
void clip_grad_value(const std::vector<Tensor>& params, double clip);

}  // namespace strata::optim
