#include "cuda/cublas_standin.hpp"

#include <algorithm>
#include <atomic>

#include "kernels/cuda/cublas_api.hpp"

namespace strata::testing {
namespace {

using kernels::cuda::CublasApi;
namespace e = kernels::cuda::cublas_enum;
constexpr int kInvalidValue = 7;  // CUBLAS_STATUS_INVALID_VALUE

std::atomic<bool> enabled{false};
std::atomic<int> runs{0};

template <class T>
int gemm_strided_batched(void*, int transa, int transb, int m, int n, int k, const T* alpha, const T* a, int lda,
                         long long stride_a, const T* b, int ldb, long long stride_b, const T* beta, T* c, int ldc,
                         long long stride_c, int batch) {
  const bool ta = transa == e::kOpT, tb = transb == e::kOpT;
  if ((transa != e::kOpN && !ta) || (transb != e::kOpN && !tb) || m < 0 || n < 0 || k < 0 || batch < 0)
    return kInvalidValue;
  if (lda < std::max(1, ta ? k : m) || ldb < std::max(1, tb ? n : k) || ldc < std::max(1, m)) return kInvalidValue;
  for (int p = 0; p < batch; ++p) {
    const T* A = a + p * stride_a;
    const T* B = b + p * stride_b;
    T* C = c + p * stride_c;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        double acc = 0;
        for (int l = 0; l < k; ++l)
          acc += double(ta ? A[l + int64_t{i} * lda] : A[i + int64_t{l} * lda]) *
                 double(tb ? B[j + int64_t{l} * ldb] : B[l + int64_t{j} * ldb]);
        T& out = C[i + int64_t{j} * ldc];
        out = static_cast<T>(*alpha * acc + (*beta == T(0) ? 0.0 : double(*beta) * out));
      }
  }
  ++runs;
  return e::kSuccess;
}

}  // namespace

void use_cublas_standin(bool on) { enabled = on; }
int cublas_standin_runs() { return runs; }

}  // namespace strata::testing

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

const CublasApi* cublas() {
  static const CublasApi api{testing::gemm_strided_batched<float>, testing::gemm_strided_batched<double>, nullptr};
  return testing::enabled ? &api : nullptr;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
