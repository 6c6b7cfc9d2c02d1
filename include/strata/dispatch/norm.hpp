// The batch-norm and layer-norm kernel families, forward and backward. Batch norm sees x as
// [M, C] (channels last, statistics per channel over M rows); layer norm sees x as [M, N]
// (statistics per row over the N normalised values). gamma and beta may be undefined (1 and 0).
// Per-channel statistics are host vectors of doubles: the op updates running statistics with them.
#pragma once
#include <vector>

#include "strata/dispatch/stub.hpp"

namespace strata::dispatch {

// Per-channel mean and biased variance of x [..., C] over all axes but the last.
struct ChannelStats {
  std::vector<double> mean, var;
};
struct NormGrads {
  Tensor x, gamma, beta;  // undefined where not asked for
};
// Layer norm's output, and the mean and rstd ([M], x's dtype) its backward reads.
struct LayerNormOut {
  Tensor y, mean, rstd;
};

extern Stub<ChannelStats(const Tensor& x)> channel_mean_var;
// y = (x - mean[c]) * invstd[c] * gamma[c] + beta[c] over x [..., C].
extern Stub<Tensor(const Tensor& x, const std::vector<double>& mean, const std::vector<double>& invstd,
                   const Tensor& gamma, const Tensor& beta)>
    batch_norm_apply;
// batch_stats: the forward normalised with this batch's statistics (their gradient flows into
// dx); otherwise they were constants (running statistics).
extern Stub<NormGrads(const Tensor& grad, const Tensor& x, const std::vector<double>& mean,
                      const std::vector<double>& invstd, const Tensor& gamma, bool batch_stats, bool want_x,
                      bool want_gamma, bool want_beta)>
    batch_norm_backward;
// Layer norm over the last `n` values of each row.
extern Stub<LayerNormOut(const Tensor& x, int64_t n, const Tensor& gamma, const Tensor& beta, double eps)>
    layer_norm_forward;
extern Stub<NormGrads(const Tensor& grad, const Tensor& x, int64_t n, const Tensor& mean, const Tensor& rstd,
                      const Tensor& gamma, bool want_x, bool want_gamma, bool want_beta)>
    layer_norm_backward;

}  // namespace strata::dispatch
