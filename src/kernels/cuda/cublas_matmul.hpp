// The matrix product on cuBLAS (cublas_matmul.cpp): matmul.cu's matmul3d calls it when cublas()
// returns a library and cublas_takes the case.
#pragma once
#include "kernels/cuda/cublas_api.hpp"
#include "strata/core/tensor.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

// float32 or float64 operands of one dtype, k > 0, sizes that fit an int.
bool cublas_takes(const Tensor& a, const Tensor& b);
Tensor cublas_matmul3d(const CublasApi& api, const Tensor& a, const Tensor& b, const Tensor& bias);

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
