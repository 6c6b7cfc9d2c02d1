// A host stand-in for the cuBLAS GEMMs the CUDA backend calls (src/kernels/cuda/cublas_api.hpp),
// for the emulated build: column-major strided-batched products as the BLAS reference defines
// them (op(A), op(B), leading dimensions, batch strides, alpha, beta not reading C when 0), which
// refuse leading dimensions too small for their matrices. So the wrapper (cublas_matmul.cpp) is
// tested without a GPU.
#pragma once

namespace strata::testing {

// While on, the emulated backend's cublas() returns the stand-in and matmul uses it.
void use_cublas_standin(bool on);
// Products the stand-in has run.
int cublas_standin_runs();

}  // namespace strata::testing
