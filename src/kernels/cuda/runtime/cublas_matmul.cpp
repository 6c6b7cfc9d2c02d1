// matmul3d as one cublas<T>gemmStridedBatched. cuBLAS is loaded with dlopen (libcublas.so.13 or
// .12, as CUDA 13 and 12 name it; PyTorch's wheels bring one), so libstrata_cuda still needs only
// the driver, and without cuBLAS the own kernel runs. STRATA_CUDA_CUBLAS=0 turns it off (to compare
// the two). FP32 math mode: no TF32, so float32 results stay within rounding of the CPU's.
//
// cuBLAS is column-major: a row-major C = A·B is the column-major Cᵀ = Bᵀ·Aᵀ, so B goes first. A
// row-major matrix (unit column stride) is its transpose to cuBLAS with no copy; a column-major
// one (a transposed view) is passed with CUBLAS_OP_T; any other layout is made contiguous.
#include "kernels/cuda/matmul.hpp"


#include <cublas_v2.h>
#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <optional>
#include <string>

#include "kernels/cuda/elementwise.hpp"
#include "kernels/cuda/runtime/runtime.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {
namespace {

// The entry points used, looked up by name in the loaded library.
struct Cublas {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSgemmStridedBatched) sgemm = nullptr;
  decltype(&cublasDgemmStridedBatched) dgemm = nullptr;
  cublasHandle_t handle = nullptr;
};

// The library and a handle on the backend's stream, or nullopt when cuBLAS cannot be used.
const std::optional<Cublas>& cublas() {
  static const std::optional<Cublas> loaded = []() -> std::optional<Cublas> {
    const char* off = std::getenv("STRATA_CUDA_CUBLAS");
    if (off && std::string(off) == "0") return std::nullopt;
    void* lib = nullptr;
    for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"})
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!lib) return std::nullopt;
    Cublas c;
    c.create = reinterpret_cast<decltype(c.create)>(dlsym(lib, "cublasCreate_v2"));
    c.set_stream = reinterpret_cast<decltype(c.set_stream)>(dlsym(lib, "cublasSetStream_v2"));
    c.sgemm = reinterpret_cast<decltype(c.sgemm)>(dlsym(lib, "cublasSgemmStridedBatched"));
    c.dgemm = reinterpret_cast<decltype(c.dgemm)>(dlsym(lib, "cublasDgemmStridedBatched"));
    if (!c.create || !c.set_stream || !c.sgemm || !c.dgemm) return std::nullopt;
    if (c.create(&c.handle) != CUBLAS_STATUS_SUCCESS) return std::nullopt;
    if (c.set_stream(c.handle, current_stream()) != CUBLAS_STATUS_SUCCESS) return std::nullopt;
    return c;
  }();
  return loaded;
}

// A [batch, rows, cols] row-major operand as cuBLAS takes it.
struct Operand {
  const void* data;
  cublasOperation_t op;
  int64_t ld;
  int64_t batch_stride;  // 0 when one matrix serves every batch
};

std::optional<Operand> as_operand(const Tensor& t) {
  const int64_t rows = t.shape()[1], cols = t.shape()[2];
  const int64_t batch_stride = t.shape()[0] == 1 ? 0 : t.strides()[0];
  if (t.strides()[2] == 1 || cols == 1) {  // row-major: to cuBLAS its transpose, as it is
    const int64_t ld = rows == 1 ? cols : t.strides()[1];
    if (ld >= cols) return Operand{t.raw_data(), CUBLAS_OP_N, ld, batch_stride};
  }
  if (t.strides()[1] == 1 || rows == 1) {  // column-major: cuBLAS transposes it
    const int64_t ld = cols == 1 ? rows : t.strides()[2];
    if (ld >= rows) return Operand{t.raw_data(), CUBLAS_OP_T, ld, batch_stride};
  }
  return std::nullopt;
}

void check_cublas(cublasStatus_t status) {
  if (status != CUBLAS_STATUS_SUCCESS) throw Error("cuBLAS: matmul failed with status " + std::to_string(status));
}

template <class T>
void gemm(const Cublas& c, const Operand& a, const Operand& b, Tensor& out, int batch, int m, int k, int n, T beta) {
  const T alpha = 1;
  T* d = out.data<T>();
  const T* pa = static_cast<const T*>(a.data);
  const T* pb = static_cast<const T*>(b.data);
  // Column-major Cᵀ [n x m] = Bᵀ [n x k] · Aᵀ [k x m].
  if constexpr (std::is_same_v<T, float>)
    check_cublas(c.sgemm(c.handle, b.op, a.op, n, m, k, &alpha, pb, b.ld, b.batch_stride, pa, a.ld, a.batch_stride,
                         &beta, d, n, int64_t{m} * n, batch));
  else
    check_cublas(c.dgemm(c.handle, b.op, a.op, n, m, k, &alpha, pb, b.ld, b.batch_stride, pa, a.ld, a.batch_stride,
                         &beta, d, n, int64_t{m} * n, batch));
}

}  // namespace

Tensor matmul3d_cublas(const Tensor& a_in, const Tensor& b_in, const Tensor& bias) {
  const std::optional<Cublas>& c = cublas();
  const int64_t batch = std::max(a_in.shape()[0], b_in.shape()[0]);
  const int64_t m = a_in.shape()[1], k = a_in.shape()[2], n = b_in.shape()[2];
  const bool fits = std::max({batch, m, k, n, a_in.numel(), b_in.numel()}) < INT_MAX;  // cuBLAS takes int sizes
  if (!c || !fits || k == 0 || a_in.dtype() != b_in.dtype() || !is_floating(a_in.dtype()))
    return matmul3d(a_in, b_in, bias);
  Tensor out = Tensor::empty({batch, m, n}, a_in.dtype(), a_in.device());
  if (out.numel() == 0) return out;
  // The bias is written first and the product added to it (beta = 1): no second pass.
  if (bias.defined()) copy_into(out, bias);
  std::optional<Operand> a = as_operand(a_in), b = as_operand(b_in);
  const Tensor a_dense = a ? a_in : contiguous_copy(a_in), b_dense = b ? b_in : contiguous_copy(b_in);
  if (!a) a = as_operand(a_dense);
  if (!b) b = as_operand(b_dense);
  dispatch_floating(out.dtype(), "matmul", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gemm<T>(*c, *a, *b, out, static_cast<int>(batch), static_cast<int>(m), static_cast<int>(k), static_cast<int>(n),
            bias.defined() ? T(1) : T(0));
  });
  return out;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
