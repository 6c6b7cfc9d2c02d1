// The CUDA backend's normalisation families, each with its stub's signature. STRATA_CUDA_NORM_STUBS lists
// the ones implemented (families.hpp registers them).
#pragma once
#include "kernels/cuda/portable.hpp"
#include "strata/dispatch/norm.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

dispatch::ChannelStats channel_mean_var(const Tensor& x);
Tensor batch_norm_apply(const Tensor& x, const std::vector<double>& mean, const std::vector<double>& invstd,
                        const Tensor& gamma, const Tensor& beta);
dispatch::NormGrads batch_norm_backward(const Tensor& grad, const Tensor& x, const std::vector<double>& mean,
                                        const std::vector<double>& invstd, const Tensor& gamma, bool batch_stats,
                                        bool want_x, bool want_gamma, bool want_beta);
dispatch::LayerNormOut layer_norm_forward(const Tensor& x, int64_t n, const Tensor& gamma, const Tensor& beta,
                                          double eps);
dispatch::NormGrads layer_norm_backward(const Tensor& grad, const Tensor& x, int64_t n, const Tensor& mean,
                                        const Tensor& rstd, const Tensor& gamma, bool want_x, bool want_gamma,
                                        bool want_beta);

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda

#define STRATA_CUDA_NORM_STUBS(X)                                                                    \
  X(channel_mean_var) X(batch_norm_apply) X(batch_norm_backward) X(layer_norm_forward) X(layer_norm_backward)
