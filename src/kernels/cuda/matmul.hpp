// The CUDA backend's matrix product, with its stub's signature (STRATA_CUDA_MATMUL_STUBS).
#pragma once
#include "kernels/cuda/portable.hpp"
#include "strata/dispatch/matmul.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

// On cuBLAS where it is loaded (cublas_matmul.cpp), else the own kernel.
Tensor matmul3d(const Tensor& a, const Tensor& b, const Tensor& bias);

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda

#define STRATA_CUDA_MATMUL_STUBS(X) X(matmul3d)
