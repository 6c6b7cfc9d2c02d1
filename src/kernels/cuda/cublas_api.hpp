// The part of cuBLAS's C API that cublas_matmul.cpp uses, declared here rather than taken from
// cublas_v2.h, for the same reason as cudnn_api.hpp: the GPU build loads cuBLAS with dlopen
// (runtime/cublas_loader.cpp, which checks these declarations against the real header), and the
// emulated build of tests/cuda fills the table with a host stand-in, so the wrapper's operand
// order, transposes, leading dimensions, batch strides and bias are tested without a GPU.
#pragma once
#include "kernels/cuda/portable.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

namespace cublas_enum {
inline constexpr int kSuccess = 0;        // cublasStatus_t CUBLAS_STATUS_SUCCESS
inline constexpr int kOpN = 0, kOpT = 1;  // cublasOperation_t
}  // namespace cublas_enum

template <class T>
using CublasGemmStridedBatched = int (*)(void* handle, int transa, int transb, int m, int n, int k, const T* alpha,
                                         const T* a, int lda, long long stride_a, const T* b, int ldb,
                                         long long stride_b, const T* beta, T* c, int ldc, long long stride_c,
                                         int batch);

struct CublasApi {
  CublasGemmStridedBatched<float> sgemm;   // cublasSgemmStridedBatched
  CublasGemmStridedBatched<double> dgemm;  // cublasDgemmStridedBatched
  void* handle;                            // on the backend's stream, in the chosen math mode
};

// The loaded cuBLAS (GPU build: runtime/cublas_loader.cpp; STRATA_CUDA_CUBLAS=0 turns it off), or
// the host stand-in a test installed (emulated build: tests/cuda/cublas_standin.cpp); nullptr:
// the own matmul kernel runs.
const CublasApi* cublas();

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
