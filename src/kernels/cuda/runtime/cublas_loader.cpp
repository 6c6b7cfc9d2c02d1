// cuBLAS for the GPU build: libcublas.so.13 (or .12, as CUDA 13 and 12 name it; PyTorch's wheels
// bring one) with dlopen, its GEMMs into the table of cublas_api.hpp, a handle on the backend's
// stream. FP32 math by default, so float32 results stay within rounding of the CPU's;
// STRATA_CUDA_TF32=1 lets float32 products use TF32 tensor cores (10-bit mantissa inputs).
#include <cublas_v2.h>

#include <string>

#include "kernels/cuda/cublas_api.hpp"
#include "kernels/cuda/runtime/runtime.hpp"
#include "kernels/cuda/runtime/vendor_library.hpp"

// The declarations of cublas_api.hpp against the real header.
static_assert(CUBLAS_STATUS_SUCCESS == strata::kernels::cuda::cublas_enum::kSuccess);
static_assert(CUBLAS_OP_N == strata::kernels::cuda::cublas_enum::kOpN);
static_assert(CUBLAS_OP_T == strata::kernels::cuda::cublas_enum::kOpT);
static_assert(sizeof(cublasOperation_t) == sizeof(int) && sizeof(cublasStatus_t) == sizeof(int));

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {
namespace {

const CublasApi* load() {
  void* lib = load_vendor_library("cuBLAS", "STRATA_CUDA_CUBLAS", {"libcublas.so.13", "libcublas.so.12", "libcublas.so"});
  if (!lib) return nullptr;
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetMathMode) set_math = nullptr;
  static CublasApi api;
  const bool bound = bind_symbol(lib, "cuBLAS", create, "cublasCreate_v2") &&
                     bind_symbol(lib, "cuBLAS", set_stream, "cublasSetStream_v2") &&
                     bind_symbol(lib, "cuBLAS", set_math, "cublasSetMathMode") &&
                     bind_symbol(lib, "cuBLAS", api.sgemm, "cublasSgemmStridedBatched") &&
                     bind_symbol(lib, "cuBLAS", api.dgemm, "cublasDgemmStridedBatched");
  if (!bound) return nullptr;
  cublasHandle_t handle = nullptr;
  if (const cublasStatus_t s = create(&handle); s != CUBLAS_STATUS_SUCCESS) {
    log_backend("cuBLAS: cublasCreate failed with status " + std::to_string(s) + "; the own kernel runs");
    return nullptr;
  }
  const cublasMath_t math = tf32_enabled() ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH;
  if (set_stream(handle, current_stream()) != CUBLAS_STATUS_SUCCESS || set_math(handle, math) != CUBLAS_STATUS_SUCCESS) {
    log_backend("cuBLAS: setting its stream or math mode failed; the own kernel runs");
    return nullptr;
  }
  api.handle = handle;
  log_backend(std::string("cuBLAS: float32 math ") + float32_math_name());
  return &api;
}

}  // namespace

const CublasApi* cublas() {
  static const CublasApi* const api = load();
  return api;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
