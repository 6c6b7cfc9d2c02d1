// The CUDA backend's pooling families, each with its stub's signature. STRATA_CUDA_POOL_STUBS lists
// the ones implemented (families.hpp registers them).
#pragma once
#include "kernels/cuda/portable.hpp"
#include "strata/dispatch/pool.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

Tensor pool_forward(const Tensor& x, const dispatch::PoolGeometry& g,
                    std::shared_ptr<dispatch::PoolWorkspace>* workspace);
Tensor pool_backward(const Tensor& dy, const Tensor& x, const dispatch::PoolGeometry& g,
                     const std::shared_ptr<dispatch::PoolWorkspace>& workspace);

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda

#define STRATA_CUDA_POOL_STUBS(X) X(pool_forward) X(pool_backward)
