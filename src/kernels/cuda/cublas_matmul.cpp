// matmul3d as one cuBLAS strided-batched GEMM (cublas_api.hpp) where cuBLAS is loaded, float32 and
// float64: one call for the whole batch, no copies of row-major or transposed operands.
//
// cuBLAS is column-major: a row-major C = A·B is the column-major Cᵀ = Bᵀ·Aᵀ, so B goes first. A
// row-major matrix (unit column stride) is its transpose to cuBLAS with no copy; a column-major
// one (a transposed view) is passed with CUBLAS_OP_T; any other layout is made contiguous.
#include "kernels/cuda/cublas_matmul.hpp"

#include <algorithm>
#include <climits>
#include <optional>
#include <string>

#include "kernels/cuda/elementwise.hpp"
#include "strata/core/error.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {
namespace {

// A [batch, rows, cols] row-major operand as cuBLAS takes it.
struct Operand {
  const void* data;
  int op;
  int64_t ld;
  int64_t batch_stride;  // 0 when one matrix serves every batch
};

std::optional<Operand> as_operand(const Tensor& t) {
  const int64_t rows = t.shape()[1], cols = t.shape()[2];
  const int64_t batch_stride = t.shape()[0] == 1 ? 0 : t.strides()[0];
  if (t.strides()[2] == 1 || cols == 1) {  // row-major: to cuBLAS its transpose, as it is
    const int64_t ld = rows == 1 ? cols : t.strides()[1];
    if (ld >= cols) return Operand{t.raw_data(), cublas_enum::kOpN, ld, batch_stride};
  }
  if (t.strides()[1] == 1 || rows == 1) {  // column-major: cuBLAS transposes it
    const int64_t ld = cols == 1 ? rows : t.strides()[2];
    if (ld >= rows) return Operand{t.raw_data(), cublas_enum::kOpT, ld, batch_stride};
  }
  return std::nullopt;
}

template <class T>
void gemm(CublasGemmStridedBatched<T> f, void* handle, const Operand& a, const Operand& b, Tensor& out, int batch,
          int m, int k, int n, T beta) {
  const T alpha = 1;
  const T* pa = static_cast<const T*>(a.data);
  const T* pb = static_cast<const T*>(b.data);
  // Column-major Cᵀ [n x m] = Bᵀ [n x k] · Aᵀ [k x m].
  const int status = f(handle, b.op, a.op, n, m, k, &alpha, pb, static_cast<int>(b.ld), b.batch_stride, pa,
                       static_cast<int>(a.ld), a.batch_stride, &beta, out.data<T>(), n, int64_t{m} * n, batch);
  if (status != cublas_enum::kSuccess) throw Error("cuBLAS: matmul failed with status " + std::to_string(status));
}

}  // namespace

bool cublas_takes(const Tensor& a, const Tensor& b) {
  const int64_t batch = std::max(a.shape()[0], b.shape()[0]);
  const int64_t m = a.shape()[1], k = a.shape()[2], n = b.shape()[2];
  const bool fits = std::max({batch, m, k, n, a.numel(), b.numel(), batch * m * n}) < INT_MAX;  // cuBLAS takes ints
  return fits && k > 0 && a.dtype() == b.dtype() && (a.dtype() == kFloat32 || a.dtype() == kFloat64);
}

Tensor cublas_matmul3d(const CublasApi& api, const Tensor& a_in, const Tensor& b_in, const Tensor& bias) {
  const int64_t batch = std::max(a_in.shape()[0], b_in.shape()[0]);
  const int64_t m = a_in.shape()[1], k = a_in.shape()[2], n = b_in.shape()[2];
  Tensor out = Tensor::empty({batch, m, n}, a_in.dtype(), a_in.device());
  if (out.numel() == 0) return out;
  // The bias is written first and the product added to it (beta = 1): no second pass.
  if (bias.defined()) copy_into(out, bias);
  std::optional<Operand> a = as_operand(a_in), b = as_operand(b_in);
  const Tensor a_dense = a ? a_in : contiguous_copy(a_in), b_dense = b ? b_in : contiguous_copy(b_in);
  if (!a) a = as_operand(a_dense);
  if (!b) b = as_operand(b_dense);
  const int ib = static_cast<int>(batch), im = static_cast<int>(m), ik = static_cast<int>(k), in = static_cast<int>(n);
  if (out.dtype() == kFloat32)
    gemm<float>(api.sgemm, api.handle, *a, *b, out, ib, im, ik, in, bias.defined() ? 1.f : 0.f);
  else
    gemm<double>(api.dgemm, api.handle, *a, *b, out, ib, im, ik, in, bias.defined() ? 1.0 : 0.0);
  return out;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
