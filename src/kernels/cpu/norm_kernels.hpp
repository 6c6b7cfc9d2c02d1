// Fused batch-norm and layer-norm CPU kernels (strata/dispatch/norm.hpp documents them). Sums
// are in double and do not depend on the thread count.
#pragma once
#include <vector>

#include "strata/dispatch/norm.hpp"

namespace strata::kernels::cpu {

using dispatch::ChannelStats;
using dispatch::LayerNormOut;
using dispatch::NormGrads;

ChannelStats channel_mean_var(const Tensor& x);
Tensor batch_norm_apply(const Tensor& x, const std::vector<double>& mean, const std::vector<double>& invstd,
                        const Tensor& gamma, const Tensor& beta);
NormGrads batch_norm_backward(const Tensor& grad, const Tensor& x, const std::vector<double>& mean,
                              const std::vector<double>& invstd, const Tensor& gamma, bool batch_stats, bool want_x,
                              bool want_gamma, bool want_beta);
LayerNormOut layer_norm_forward(const Tensor& x, int64_t n, const Tensor& gamma, const Tensor& beta, double eps);
NormGrads layer_norm_backward(const Tensor& grad, const Tensor& x, int64_t n, const Tensor& mean, const Tensor& rstd,
                              const Tensor& gamma, bool want_x, bool want_gamma, bool want_beta);

}  // namespace strata::kernels::cpu
