// Batch and layer normalisation as fused ops (one kernel forward, one backward).
// Layout is channels-last (NHWC), TensorLayer's: the channel axis is the last one.
#pragma once
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata {

// Batch normalisation of x [..., C] over every axis but the last.
// training: normalises with the batch statistics and updates running_mean / running_var [C]
//   in place (when defined) by PyTorch's rule, running = (1 - momentum) * running +
//   momentum * batch, with the unbiased batch variance; needs more than one value per channel.
// eval: normalises with running_mean / running_var, or with the batch statistics when they are
//   undefined (PyTorch's track_running_stats=False).
// gamma (scale) and beta (shift) [C] may be undefined (1 and 0). Running statistics carry no
// gradient. y = (x - mean) / sqrt(var + eps) * gamma + beta.
Tensor batch_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum = 0.1, double eps = 1e-5);

// Layer normalisation over the last normalized_shape.size() axes of x, which must equal
// normalized_shape; gamma and beta (optional) have that shape. Biased variance, as PyTorch.
Tensor layer_norm(const Tensor& x, const std::vector<int64_t>& normalized_shape, const Tensor& gamma = Tensor(),
                  const Tensor& beta = Tensor(), double eps = 1e-5);

}  // namespace strata
