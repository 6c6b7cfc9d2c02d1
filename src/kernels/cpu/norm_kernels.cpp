#include "kernels/cpu/norm_kernels.hpp"

#include <cmath>

#include "kernels/cpu/partial_sums.hpp"

namespace strata::kernels::cpu {
namespace {

int64_t last_dim(const Tensor& x) { return x.dim() == 0 ? 1 : x.shape().back(); }

// gamma / beta as a dense T array of n values, `fallback` everywhere when undefined.
template <class T>
std::vector<T> param_values(const Tensor& p, int64_t n, T fallback) {
  if (!p.defined()) return std::vector<T>(n, fallback);
  Tensor d = dense(p);
  const T* v = d.data<T>();
  return std::vector<T>(v, v + n);
}

Tensor tensor_of(const std::vector<double>& v, DType dtype, Device device) {
  Tensor out = Tensor::empty(Shape{static_cast<int64_t>(v.size())}, dtype, device);
  dispatch_floating(dtype, "normalization", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.data<T>();
    for (size_t i = 0; i < v.size(); ++i) o[i] = static_cast<T>(v[i]);
  });
  return out;
}

// Rows of [rows, width] split over the threads, about kParallelGrain elements per task.
template <class F>
void for_rows(int64_t rows, int64_t width, F&& f) {
  parallel_for(rows, std::max<int64_t>(kParallelGrain / std::max<int64_t>(width, 1), 1), f);
}

// One row's share of layer norm's dgamma (g * xhat) and dbeta (g); out of line so that the
// loop sees plain pointers and vectorises without gathers.
template <class T>
[[gnu::noinline]] void add_param_grads(const T* x, const T* g, T mean, T rstd, double* dgamma, double* dbeta,
                                       int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    dgamma[i] += g[i] * ((x[i] - mean) * rstd);
    dbeta[i] += g[i];
  }
}

}  // namespace

ChannelStats channel_mean_var(const Tensor& x_in) {
  Tensor x = dense(x_in);
  const int64_t C = last_dim(x), M = C == 0 ? 0 : x.numel() / C;
  ChannelStats st;
  dispatch_floating(x.dtype(), "batch_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.data<T>();
    st.mean = column_sums(M, C, [&](int64_t b, int64_t e, double* acc) {
      for (int64_t r = b; r < e; ++r) {
        const T* xr = xp + r * C;
#pragma omp simd
        for (int64_t c = 0; c < C; ++c) acc[c] += xr[c];
      }
    });
    for (double& m : st.mean) m /= static_cast<double>(M);
    const double* mean = st.mean.data();
    st.var = column_sums(M, C, [&](int64_t b, int64_t e, double* acc) {
      for (int64_t r = b; r < e; ++r) {
        const T* xr = xp + r * C;
#pragma omp simd
        for (int64_t c = 0; c < C; ++c) {
          const double d = static_cast<double>(xr[c]) - mean[c];
          acc[c] += d * d;
        }
      }
    });
    for (double& v : st.var) v /= static_cast<double>(M);
  });
  return st;
}

Tensor batch_norm_apply(const Tensor& x_in, const std::vector<double>& mean, const std::vector<double>& invstd,
                        const Tensor& gamma, const Tensor& beta) {
  Tensor x = dense(x_in);
  Tensor y = Tensor::empty(x.shape(), x.dtype(), x.device());
  const int64_t C = last_dim(x), M = C == 0 ? 0 : x.numel() / C;
  dispatch_floating(x.dtype(), "batch_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    // y = x * a + b per channel, with a = invstd * gamma and b = beta - mean * a.
    std::vector<T> a = param_values<T>(gamma, C, T(1)), b = param_values<T>(beta, C, T(0));
    for (int64_t c = 0; c < C; ++c) {
      const double ac = invstd[c] * a[c];
      a[c] = static_cast<T>(ac);
      b[c] = static_cast<T>(b[c] - mean[c] * ac);
    }
    const T* xp = x.data<T>();
    T* yp = y.data<T>();
    const T *ap = a.data(), *bp = b.data();
    for_rows(M, C, [&](int64_t rb, int64_t re) {
      for (int64_t r = rb; r < re; ++r) {
        const T* xr = xp + r * C;
        T* yr = yp + r * C;
#pragma omp simd
        for (int64_t c = 0; c < C; ++c) yr[c] = xr[c] * ap[c] + bp[c];
      }
    });
  });
  return y;
}

NormGrads batch_norm_backward(const Tensor& grad, const Tensor& x_in, const std::vector<double>& mean,
                              const std::vector<double>& invstd, const Tensor& gamma, bool batch_stats, bool want_x,
                              bool want_gamma, bool want_beta) {
  Tensor x = dense(x_in);
  Tensor g = dense(grad.dtype() == x.dtype() ? grad : cast(grad, x.dtype()));
  const int64_t C = last_dim(x), M = C == 0 ? 0 : x.numel() / C;
  NormGrads out;
  dispatch_floating(x.dtype(), "batch_norm backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.data<T>();
    const T* gp = g.data<T>();
    // sums[c] = sum of g, sums[C + c] = sum of g * (x - mean): what dgamma, dbeta and the
    // batch-statistics terms of dx need.
    std::vector<double> sums;
    if (batch_stats || want_gamma || want_beta) {
      const double* mp = mean.data();
      sums = column_sums(M, 2 * C, [&](int64_t b, int64_t e, double* acc) {
        for (int64_t r = b; r < e; ++r) {
          const T* xr = xp + r * C;
          const T* gr = gp + r * C;
#pragma omp simd
          for (int64_t c = 0; c < C; ++c) {
            acc[c] += gr[c];
            acc[C + c] += gr[c] * (static_cast<double>(xr[c]) - mp[c]);
          }
        }
      });
    }
    if (want_gamma) {
      std::vector<double> dg(C);
      for (int64_t c = 0; c < C; ++c) dg[c] = sums[C + c] * invstd[c];
      out.gamma = tensor_of(dg, x.dtype(), x.device());
    }
    if (want_beta) out.beta = tensor_of(std::vector<double>(sums.begin(), sums.begin() + C), x.dtype(), x.device());
    if (!want_x) return;
    // dx = g * A + x * B + D per channel. With k = gamma * invstd: A = k, and with batch
    // statistics B = -k * invstd^2 * sum(g (x - mean)) / M, D = -k * sum(g) / M - B * mean.
    const std::vector<T> gam = param_values<T>(gamma, C, T(1));
    std::vector<T> A(C), B(C, T(0)), D(C, T(0));
    for (int64_t c = 0; c < C; ++c) {
      const double k = gam[c] * invstd[c];
      A[c] = static_cast<T>(k);
      if (batch_stats) {
        const double bc = -k * invstd[c] * invstd[c] * sums[C + c] / static_cast<double>(M);
        B[c] = static_cast<T>(bc);
        D[c] = static_cast<T>(-k * sums[c] / static_cast<double>(M) - bc * mean[c]);
      }
    }
    out.x = Tensor::empty(x.shape(), x.dtype(), x.device());
    T* op = out.x.data<T>();
    const T *ap = A.data(), *bp = B.data(), *dp = D.data();
    for_rows(M, C, [&](int64_t rb, int64_t re) {
      for (int64_t r = rb; r < re; ++r) {
        const int64_t at = r * C;
#pragma omp simd
        for (int64_t c = 0; c < C; ++c) op[at + c] = gp[at + c] * ap[c] + xp[at + c] * bp[c] + dp[c];
      }
    });
  });
  return out;
}

LayerNormOut layer_norm_forward(const Tensor& x_in, int64_t n, const Tensor& gamma, const Tensor& beta, double eps) {
  Tensor x = dense(x_in);
  const int64_t M = n == 0 ? 0 : x.numel() / n;
  LayerNormOut out{Tensor::empty(x.shape(), x.dtype(), x.device()), Tensor::empty(Shape{M}, x.dtype(), x.device()),
                   Tensor::empty(Shape{M}, x.dtype(), x.device())};
  dispatch_floating(x.dtype(), "layer_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const std::vector<T> gam = param_values<T>(gamma, n, T(1)), bet = param_values<T>(beta, n, T(0));
    const T *xp = x.data<T>(), *gp = gam.data(), *bp = bet.data();
    T *yp = out.y.data<T>(), *mp = out.mean.data<T>(), *rp = out.rstd.data<T>();
    for_rows(M, n, [&](int64_t rb, int64_t re) {
      for (int64_t r = rb; r < re; ++r) {
        const T* xr = xp + r * n;
        T* yr = yp + r * n;
        const double mean = chunked_sum<T>(n, [&](int64_t i) { return xr[i]; }) / static_cast<double>(n);
        const T mt = static_cast<T>(mean);
        const double var = chunked_sum<T>(n, [&](int64_t i) { return (xr[i] - mt) * (xr[i] - mt); });
        const double rstd = 1.0 / std::sqrt(var / static_cast<double>(n) + eps);
        const T rt = static_cast<T>(rstd);
        mp[r] = mt;
        rp[r] = rt;
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - mt) * rt * gp[i] + bp[i];
      }
    });
  });
  return out;
}

NormGrads layer_norm_backward(const Tensor& grad, const Tensor& x_in, int64_t n, const Tensor& mean,
                              const Tensor& rstd, const Tensor& gamma, bool want_x, bool want_gamma, bool want_beta) {
  Tensor x = dense(x_in);
  Tensor g = dense(grad.dtype() == x.dtype() ? grad : cast(grad, x.dtype()));
  const int64_t M = n == 0 ? 0 : x.numel() / n;
  NormGrads out;
  dispatch_floating(x.dtype(), "layer_norm backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *xp = x.data<T>(), *gp = g.data<T>(), *mp = mean.data<T>(), *rp = rstd.data<T>();
    if (want_gamma || want_beta) {
      // sums[i] = sum over rows of g * xhat (dgamma), sums[n + i] = sum of g (dbeta).
      std::vector<double> sums = column_sums(M, 2 * n, [&](int64_t b, int64_t e, double* acc) {
        for (int64_t r = b; r < e; ++r) add_param_grads(xp + r * n, gp + r * n, mp[r], rp[r], acc, acc + n, n);
      });
      if (want_gamma) out.gamma = tensor_of(std::vector<double>(sums.begin(), sums.begin() + n), x.dtype(), x.device());
      if (want_beta) out.beta = tensor_of(std::vector<double>(sums.begin() + n, sums.end()), x.dtype(), x.device());
    }
    if (!want_x) return;
    const std::vector<T> gam = param_values<T>(gamma, n, T(1));
    const T* gm = gam.data();
    out.x = Tensor::empty(x.shape(), x.dtype(), x.device());
    T* op = out.x.data<T>();
    // dx = rstd * (gy - mean(gy) - xhat * mean(gy * xhat)), gy = g * gamma.
    for_rows(M, n, [&](int64_t rb, int64_t re) {
      for (int64_t r = rb; r < re; ++r) {
        const T *xr = xp + r * n, *gr = gp + r * n;
        T* o = op + r * n;
        const T mt = mp[r], rt = rp[r];
        const double a = chunked_sum<T>(n, [&](int64_t i) { return gr[i] * gm[i]; });
        const double b = chunked_sum<T>(n, [&](int64_t i) { return gr[i] * gm[i] * ((xr[i] - mt) * rt); });
        const T am = static_cast<T>(a / static_cast<double>(n)), bm = static_cast<T>(b / static_cast<double>(n));
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) o[i] = rt * (gr[i] * gm[i] - am - (xr[i] - mt) * rt * bm);
      }
    });
  });
  return out;
}

}  // namespace strata::kernels::cpu
