// matmul3d on cuBLAS where it is loaded (cublas_matmul.cpp), else with one thread per output
// element, reading a and b through their strides (views and transposes need no copy), float32
// and float64: correct everywhere the driver runs, with no CUDA library beyond the runtime.
#include "kernels/cuda/matmul.hpp"

#include "kernels/cuda/cublas_matmul.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {
namespace detail {

// A [batch, rows, cols] operand: its data and strides, batch stride 0 when it is broadcast.
template <class T>
struct MatrixRef {
  const T* data;
  int64_t batch_stride, row_stride, col_stride;
  MatrixRef(const Tensor& t)  // NOLINT: implicit, the call sites read better
      : data(t.data<T>()),
        batch_stride(t.shape()[0] == 1 ? 0 : t.strides()[0]),
        row_stride(t.strides()[1]),
        col_stride(t.strides()[2]) {}
  STRATA_HD const T* row(int64_t b, int64_t i) const { return data + b * batch_stride + i * row_stride; }
};

template <class T>
void matmul_typed(const Tensor& a_in, const Tensor& b_in, const Tensor& bias, Tensor& out) {
  const MatrixRef<T> a = a_in, b = b_in;
  const T* pbias = bias.defined() ? bias.data<T>() : nullptr;
  const int64_t bias_stride = bias.defined() ? bias.strides()[0] : 0;
  const int64_t m = out.shape()[1], n = out.shape()[2], k = a_in.shape()[2];
  T* c = out.data<T>();
  for_each_index(out.numel(), "matmul", [=] STRATA_HD(int64_t e) {
    const int64_t j = e % n, i = e / n % m, batch = e / (m * n);
    const T* arow = a.row(batch, i);
    const T* bcol = b.row(batch, 0) + j * b.col_stride;
    T acc = pbias ? pbias[j * bias_stride] : T(0);
    for (int64_t p = 0; p < k; ++p) acc += arow[p * a.col_stride] * bcol[p * b.row_stride];
    c[e] = acc;
  });
}

}  // namespace detail

Tensor matmul3d(const Tensor& a, const Tensor& b, const Tensor& bias) {
  STRATA_CHECK(a.dtype() == b.dtype(), "matmul: operands have dtypes ", dtype_name(a.dtype()), " and ",
               dtype_name(b.dtype()));
  if (const CublasApi* api = cublas(); api && cublas_takes(a, b)) return cublas_matmul3d(*api, a, b, bias);
  Tensor out = Tensor::empty({std::max(a.shape()[0], b.shape()[0]), a.shape()[1], b.shape()[2]}, a.dtype(), a.device());
  dispatch_floating(a.dtype(), "matmul", [&](auto tag) {
    detail::matmul_typed<typename decltype(tag)::type>(a, b, bias, out);
  });
  return out;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
