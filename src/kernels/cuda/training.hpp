// The CUDA backend's dropout and optimizer families, each with its stub's signature. STRATA_CUDA_TRAINING_STUBS lists
// the ones implemented (families.hpp registers them).
#pragma once
#include "kernels/cuda/portable.hpp"
#include "strata/dispatch/dropout.hpp"
#include "strata/dispatch/optim.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

Tensor dropout_apply(const Tensor& x, double p, uint64_t seed);
void adam_step(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, Tensor* vmax, const dispatch::AdamStep& s);

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda

#define STRATA_CUDA_TRAINING_STUBS(X) X(dropout_apply) X(adam_step)
