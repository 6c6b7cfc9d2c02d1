// Loss functions (TensorLayer's `cost` module) as fused ops: one kernel forward, one backward.
// Each reduces by `Reduction` (mean by default, as PyTorch): none keeps the per-element (or
// per-sample) losses, mean averages them, sum adds them.
#pragma once
#include "strata/core/tensor.hpp"

namespace strata {

enum class Reduction { none, mean, sum };

// Softmax cross-entropy from unnormalised logits [..., C] (classes on the last axis).
// `targets` is either int64/int32 class ids of shape logits.shape[:-1], each in [0, C), or
// float probabilities (e.g. one-hot) of logits' shape. Per-sample losses have shape
// logits.shape[:-1]; mean divides by their count. (cost.cross_entropy)
Tensor cross_entropy(const Tensor& logits, const Tensor& targets, Reduction reduction = Reduction::mean);
// Negative log-likelihood of log-probabilities [..., C] at int class ids [...].
Tensor nll_loss(const Tensor& log_probs, const Tensor& targets, Reduction reduction = Reduction::mean);
// Sigmoid cross-entropy, stable form max(x, 0) - x*t + log1p(exp(-|x|)); targets in [0, 1]
// of the logits' shape. (cost.sigmoid_cross_entropy; on probabilities: binary_cross_entropy, costs.hpp)
Tensor binary_cross_entropy_with_logits(const Tensor& logits, const Tensor& targets,
                                        Reduction reduction = Reduction::mean);
// (x - t)^2. (cost.mean_squared_error)
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::mean);
// |x - t|. (cost.absolute_difference_error)
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::mean);
// 0.5 (x - t)^2 where |x - t| <= delta, else delta (|x - t| - 0.5 delta); PyTorch's HuberLoss.
Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::mean,
                  double delta = 1.0);

}  // namespace strata
