#include "kernels/cpu/softmax_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/cpu/partial_sums.hpp"
#include "kernels/cpu/scalar_math.hpp"

namespace strata::kernels::cpu {

template <class T>
T row_max(const T* x, int64_t n) {
  T m = -std::numeric_limits<T>::infinity();
#pragma omp simd reduction(max : m)
  for (int64_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

template <class T>
T row_logsumexp(const T* x, int64_t n) {
  const T m = row_max(x, n);
  if (std::isinf(m)) return m;  // all -inf (empty support) or an inf: no finite shift exists
  T s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += math::exp(x[i] - m);
  return m + std::log(s);
}

template float row_max(const float*, int64_t);
template double row_max(const double*, int64_t);
template float row_logsumexp(const float*, int64_t);
template double row_logsumexp(const double*, int64_t);

namespace {

// The contiguous tensor seen as [outer, n, inner] with the softmax axis in the middle.
struct AxisView {
  int64_t outer = 1, n = 1, inner = 1;
  AxisView(const Shape& s, int axis) {
    for (int d = 0; d < axis; ++d) outer *= s[d];
    n = s[axis];
    for (int d = axis + 1; d < s.size(); ++d) inner *= s[d];
  }
};

// Columns of an inner > 1 problem are handled in strips this wide, so per-column state fits
// on the stack and the inner loops run over contiguous memory.
constexpr int64_t kStrip = 256;

// Calls f(base, strip_width) for every (outer, strip) pair in parallel; `base` is the offset of
// the strip's first element at position 0 along the axis.
template <class F>
void for_each_strip(const AxisView& v, F&& f) {
  const int64_t strips = (v.inner + kStrip - 1) / kStrip;
  const int64_t work = v.n * std::min(v.inner, kStrip);
  parallel_for(v.outer * strips, std::max<int64_t>(kParallelGrain / work, 1), [&](int64_t b, int64_t e) {
    for (int64_t w = b; w < e; ++w) {
      const int64_t o = w / strips, j0 = (w % strips) * kStrip;
      f(o * v.n * v.inner + j0, std::min(kStrip, v.inner - j0));
    }
  });
}

// One row, kept out of line so that every caller (threaded or not) runs the same
// vectorised code, with its bounds in registers.
template <class T>
[[gnu::noinline]] void forward_row(const T* x, T* y, int64_t n, bool log) {
  const T m = row_max(x, n);
  if (log) {
    // (x - max) - log(sum), not x - (max + log(sum)): at large x the sum's log would be
    // rounded to max's precision first (onnx's test_logsoftmax_large_number).
    T s = 0;
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) s += math::exp(x[i] - m);
    const T log_s = std::isinf(m) ? T(0) : std::log(s);  // all -inf or an inf: x - m says it
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - m) - log_s;
    return;
  }
  // Two loops: GCC does not vectorise math::exp inside a simd reduction.
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = math::exp(x[i] - m);
  T s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += y[i];
  const T inv = T(1) / s;
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] *= inv;
}

template <class T>
void forward_rows(const T* x, T* y, int64_t rows, int64_t n, bool log) {
  parallel_for(rows, std::max<int64_t>(kParallelGrain / std::max<int64_t>(n, 1), 1), [=](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) forward_row(x + r * n, y + r * n, n, log);
  });
}

template <class T>
void forward_strided(const T* x, T* y, const AxisView& v, bool log) {
  for_each_strip(v, [&](int64_t base, int64_t w) {
    T m[kStrip], s[kStrip];
    std::fill(m, m + w, -std::numeric_limits<T>::infinity());
    std::fill(s, s + w, T(0));
    for (int64_t k = 0; k < v.n; ++k) {
      const T* xk = x + base + k * v.inner;
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) m[j] = xk[j] > m[j] ? xk[j] : m[j];
    }
    for (int64_t k = 0; k < v.n; ++k) {
      const T* xk = x + base + k * v.inner;
      T* yk = y + base + k * v.inner;
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) {
        const T ex = math::exp(xk[j] - m[j]);
        if (!log) yk[j] = ex;
        s[j] += ex;
      }
    }
    for (int64_t j = 0; j < w; ++j) s[j] = log ? std::log(s[j]) : T(1) / s[j];
    for (int64_t k = 0; k < v.n; ++k) {
      const T* xk = x + base + k * v.inner;
      T* yk = y + base + k * v.inner;
      if (log) {
#pragma omp simd
        for (int64_t j = 0; j < w; ++j) yk[j] = (xk[j] - m[j]) - s[j];
      } else {
#pragma omp simd
        for (int64_t j = 0; j < w; ++j) yk[j] *= s[j];
      }
    }
  });
}

template <class T>
[[gnu::noinline]] void backward_row(const T* g, const T* y, T* gx, int64_t n, bool log) {
  T s = 0;
  if (log) {
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) s += g[i];
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) gx[i] = g[i] - math::exp(y[i]) * s;
  } else {
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) s += g[i] * y[i];
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) gx[i] = y[i] * (g[i] - s);
  }
}

template <class T>
void backward_rows(const T* g, const T* y, T* gx, int64_t rows, int64_t n, bool log) {
  parallel_for(rows, std::max<int64_t>(kParallelGrain / std::max<int64_t>(n, 1), 1), [=](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) backward_row(g + r * n, y + r * n, gx + r * n, n, log);
  });
}

template <class T>
void backward_strided(const T* g, const T* y, T* gx, const AxisView& v, bool log) {
  for_each_strip(v, [&](int64_t base, int64_t w) {
    T s[kStrip];
    std::fill(s, s + w, T(0));
    for (int64_t k = 0; k < v.n; ++k) {
      const T* gk = g + base + k * v.inner;
      const T* yk = y + base + k * v.inner;
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) s[j] += log ? gk[j] : gk[j] * yk[j];
    }
    for (int64_t k = 0; k < v.n; ++k) {
      const int64_t at = base + k * v.inner;
      if (log) {
#pragma omp simd
        for (int64_t j = 0; j < w; ++j) gx[at + j] = g[at + j] - math::exp(y[at + j]) * s[j];
      } else {
#pragma omp simd
        for (int64_t j = 0; j < w; ++j) gx[at + j] = y[at + j] * (g[at + j] - s[j]);
      }
    }
  });
}

}  // namespace

Tensor softmax_forward(const Tensor& x_in, int axis, bool log) {
  Tensor x = dense(x_in);
  Tensor y = Tensor::empty(x.shape(), x.dtype(), x.device());
  if (x.numel() == 0) return y;
  const AxisView v(x.shape(), axis);
  dispatch_floating(x.dtype(), log ? "log_softmax" : "softmax", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (v.inner == 1) forward_rows(x.data<T>(), y.data<T>(), v.outer, v.n, log);
    else forward_strided(x.data<T>(), y.data<T>(), v, log);
  });
  return y;
}

Tensor softmax_backward(const Tensor& grad_y, const Tensor& y_in, int axis, bool log) {
  Tensor g = dense(grad_y.dtype() == y_in.dtype() ? grad_y : cast(grad_y, y_in.dtype()));
  Tensor y = dense(y_in);
  Tensor gx = Tensor::empty(y.shape(), y.dtype(), y.device());
  if (y.numel() == 0) return gx;
  const AxisView v(y.shape(), axis);
  dispatch_floating(y.dtype(), log ? "log_softmax backward" : "softmax backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (v.inner == 1) backward_rows(g.data<T>(), y.data<T>(), gx.data<T>(), v.outer, v.n, log);
    else backward_strided(g.data<T>(), y.data<T>(), gx.data<T>(), v, log);
  });
  return gx;
}

}  // namespace strata::kernels::cpu
