// Fused batch-norm and layer-norm CPU kernels, forward and backward (no autograd).
// Batch norm sees x as [M, C] (channels last, statistics per channel over M rows); layer norm
// sees x as [M, N] (statistics per row over the N normalised values). gamma and beta may be
// undefined (1 and 0). Sums are in double and do not depend on the thread count.
#pragma once
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::kernels::cpu {

// Per-channel mean and biased variance of x [..., C] over all axes but the last.
struct ChannelStats {
  std::vector<double> mean, var;
};
ChannelStats channel_mean_var(const Tensor& x);

// y = (x - mean[c]) * invstd[c] * gamma[c] + beta[c] over x [..., C].
Tensor batch_norm_apply(const Tensor& x, const std::vector<double>& mean, const std::vector<double>& invstd,
                        const Tensor& gamma, const Tensor& beta);

struct NormGrads {
  Tensor x, gamma, beta;  // undefined where not asked for
};
// batch_stats: the forward normalised with this batch's statistics (their gradient flows into
// dx); otherwise they were constants (running statistics).
NormGrads batch_norm_backward(const Tensor& grad, const Tensor& x, const std::vector<double>& mean,
                              const std::vector<double>& invstd, const Tensor& gamma, bool batch_stats, bool want_x,
                              bool want_gamma, bool want_beta);

// Layer norm over the last `n` values of each row; mean and rstd ([M], x's dtype) are saved
// for the backward pass.
struct LayerNormOut {
  Tensor y, mean, rstd;
};
LayerNormOut layer_norm_forward(const Tensor& x, int64_t n, const Tensor& gamma, const Tensor& beta, double eps);
NormGrads layer_norm_backward(const Tensor& grad, const Tensor& x, int64_t n, const Tensor& mean, const Tensor& rstd,
                              const Tensor& gamma, bool want_x, bool want_gamma, bool want_beta);

}  // namespace strata::kernels::cpu
