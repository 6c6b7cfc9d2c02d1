// softmax and log_softmax along one axis, forward and backward: one thread per row (all the
// elements along the axis at one position of the other axes), each making its passes over the
// row in place through the inputs' strides. Outputs are contiguous.
#include <limits>

#include "kernels/cuda/elementwise.hpp"
#include "kernels/cuda/reduce.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {
namespace detail {

template <class T>
void softmax_forward_typed(const Tensor& x, int axis, bool log, Tensor& y) {
  const T* in = x.data<T>();
  T* out = y.data<T>();
  const Indexer rows_x = rows_along(x, axis), rows_y = rows_along(y, axis);
  const int64_t n = x.shape()[axis], xs = x.strides()[axis], ys = y.strides()[axis];
  for_each_index(x.numel() / n, log ? "log_softmax" : "softmax", [=] STRATA_HD(int64_t i) {
    const T* p = in + rows_x(i);
    T* q = out + rows_y(i);
    T m = -std::numeric_limits<T>::infinity();  // NaNs are skipped here; they reach the sum
    for (int64_t k = 0; k < n; ++k) m = p[k * xs] > m ? p[k * xs] : m;
    if (log) {
      // All -inf, or an inf: no finite shift exists, and the row's log-sum-exp is m.
      T lse = m;
      if (!std::isinf(m)) {
        T s = 0;
        for (int64_t k = 0; k < n; ++k) s += std::exp(p[k * xs] - m);
        lse = m + std::log(s);
      }
      for (int64_t k = 0; k < n; ++k) q[k * ys] = p[k * xs] - lse;
      return;
    }
    T s = 0;
    for (int64_t k = 0; k < n; ++k) s += q[k * ys] = std::exp(p[k * xs] - m);
    const T inv = T(1) / s;
    for (int64_t k = 0; k < n; ++k) q[k * ys] *= inv;
  });
}

template <class T>
void softmax_backward_typed(const Tensor& g, const Tensor& y, int axis, bool log, Tensor& gx) {
  const T* pg = g.data<T>();
  const T* py = y.data<T>();
  T* out = gx.data<T>();
  const Indexer rows_g = rows_along(g, axis), rows_y = rows_along(y, axis), rows_gx = rows_along(gx, axis);
  const int64_t n = y.shape()[axis], gs = g.strides()[axis], ys = y.strides()[axis], os = gx.strides()[axis];
  for_each_index(y.numel() / n, log ? "log_softmax backward" : "softmax backward", [=] STRATA_HD(int64_t i) {
    const T* a = pg + rows_g(i);
    const T* b = py + rows_y(i);
    T* q = out + rows_gx(i);
    T s = 0;
    for (int64_t k = 0; k < n; ++k) s += log ? a[k * gs] : a[k * gs] * b[k * ys];
    for (int64_t k = 0; k < n; ++k)
      q[k * os] = log ? a[k * gs] - std::exp(b[k * ys]) * s : b[k * ys] * (a[k * gs] - s);
  });
}

}  // namespace detail

Tensor softmax_forward(const Tensor& x, int axis, bool log) {
  Tensor y = Tensor::empty(x.shape(), x.dtype(), x.device());
  if (x.numel() == 0) return y;
  dispatch_floating(x.dtype(), log ? "log_softmax" : "softmax",
                    [&](auto tag) { detail::softmax_forward_typed<typename decltype(tag)::type>(x, axis, log, y); });
  return y;
}

Tensor softmax_backward(const Tensor& grad_y, const Tensor& y, int axis, bool log) {
  const Tensor g = grad_y.dtype() == y.dtype() ? grad_y : cast(grad_y, y.dtype());
  Tensor gx = Tensor::empty(y.shape(), y.dtype(), y.device());
  if (y.numel() == 0) return gx;
  dispatch_floating(y.dtype(), log ? "log_softmax backward" : "softmax backward", [&](auto tag) {
    detail::softmax_backward_typed<typename decltype(tag)::type>(g, y, axis, log, gx);
  });
  return gx;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
