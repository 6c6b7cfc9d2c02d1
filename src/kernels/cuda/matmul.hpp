// The CUDA backend's matrix product, with its stub's signature (STRATA_CUDA_MATMUL_STUBS).
#pragma once
#include "kernels/cuda/portable.hpp"
#include "strata/dispatch/matmul.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

Tensor matmul3d(const Tensor& a, const Tensor& b, const Tensor& bias);
// The same through cuBLAS's strided-batched GEMM (float32, float64) when the process can load
// libcublas, else matmul3d (runtime/cublas_matmul.cpp; GPU build only).
Tensor matmul3d_cublas(const Tensor& a, const Tensor& b, const Tensor& bias);

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda

#define STRATA_CUDA_MATMUL_STUBS(X) X(matmul3d)
