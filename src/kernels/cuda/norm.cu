// Batch norm and layer norm (strata/dispatch/norm.hpp), with the CPU's formulas: sums in double,
// the rest in the tensor's dtype. A sum over the rows of [M, C] runs in two passes (blocks of
// rows, then the blocks in order), so that a few channels still spread over many threads and
// the result does not depend on the launch.
#include "kernels/cuda/elementwise.hpp"
#include "kernels/cuda/indexer.hpp"
#include "kernels/cuda/norm.hpp"
#include "strata/core/factory.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {
namespace {

using dispatch::ChannelStats;
using dispatch::LayerNormOut;
using dispatch::NormGrads;

int64_t last_dim(const Tensor& x) { return x.dim() == 0 ? 1 : x.shape().back(); }

// Per-channel statistics (host doubles) as a float64 tensor on `device`.
Tensor on_device(const std::vector<double>& v, Device device) {
  return from_vector(v, Shape{static_cast<int64_t>(v.size())}, device);
}

// The gradient in x's dtype, as the CPU reads it.
Tensor grad_as(const Tensor& grad, const Tensor& x) { return grad.dtype() == x.dtype() ? grad : cast(grad, x.dtype()); }

// gamma or beta: element i of a [n] parameter (any strides), or `fallback` where it is undefined.
template <class T>
struct Param {
  const T* p;
  Indexer at;
  T fallback;
  STRATA_HD T operator[](int64_t i) const { return p ? p[at(i)] : fallback; }
};
template <class T>
Param<T> param(const Tensor& t, T fallback) {
  return t.defined() ? Param<T>{t.data<T>(), indexer_of(t), fallback} : Param<T>{nullptr, Indexer{}, fallback};
}

constexpr int64_t kRowBlock = 256;

// The sums over r in [0, rows) of term(r, c) (a double) for every column c in [0, width): a
// float64 [width] tensor on `device`.
template <class F>
Tensor column_sums(int64_t rows, int64_t width, Device device, F term) {
  const int64_t blocks = std::max<int64_t>((rows + kRowBlock - 1) / kRowBlock, 1);
  Tensor part = Tensor::empty(Shape{blocks, width}, kFloat64, device);
  Tensor out = Tensor::empty(Shape{width}, kFloat64, device);
  double* pp = part.data<double>();
  double* op = out.data<double>();
  for_each_index(blocks * width, "column_sums", [=] STRATA_HD(int64_t i) {
    const int64_t b = i / width, c = i - b * width, end = std::min(rows, (b + 1) * kRowBlock);
    double s = 0;
    for (int64_t r = b * kRowBlock; r < end; ++r) s += term(r, c);
    pp[i] = s;
  });
  for_each_index(width, "column_sums", [=] STRATA_HD(int64_t c) {
    double s = 0;
    for (int64_t b = 0; b < blocks; ++b) s += pp[b * width + c];
    op[c] = s;
  });
  return out;
}

// v[i] / d for every value of a host vector.
std::vector<double> divided(std::vector<double> v, double d) {
  for (double& x : v) x /= d;
  return v;
}

template <class T>
ChannelStats channel_mean_var_typed(const Tensor& x, int64_t M, int64_t C) {
  const T* xp = x.data<T>();
  const Indexer xa = indexer_of(x);
  const double rows = static_cast<double>(M);
  const Tensor sums = column_sums(M, C, x.device(), [=] STRATA_HD(int64_t r, int64_t c) {
    return static_cast<double>(xp[xa(r * C + c)]);
  });
  const double* sp = sums.data<double>();
  const Tensor squares = column_sums(M, C, x.device(), [=] STRATA_HD(int64_t r, int64_t c) {
    const double d = static_cast<double>(xp[xa(r * C + c)]) - sp[c] / rows;
    return d * d;
  });
  return {divided(sums.to_vector<double>(), rows), divided(squares.to_vector<double>(), rows)};
}

// y = x * a + b per channel, a = invstd * gamma and b = beta - mean * a rounded to T as on the CPU.
template <class T>
void batch_norm_apply_typed(const Tensor& x, Tensor& y, const Tensor& mean, const Tensor& invstd, const Tensor& gamma,
                            const Tensor& beta, int64_t C) {
  const T* xp = x.data<T>();
  T* yp = y.data<T>();
  const Indexer xa = indexer_of(x);
  const double *mp = mean.data<double>(), *ip = invstd.data<double>();
  const Param<T> gam = param<T>(gamma, T(1)), bet = param<T>(beta, T(0));
  for_each_index(y.numel(), "batch_norm", [=] STRATA_HD(int64_t i) {
    const int64_t c = i % C;
    const double ac = ip[c] * gam[c];
    yp[i] = xp[xa(i)] * static_cast<T>(ac) + static_cast<T>(bet[c] - mp[c] * ac);
  });
}

template <class T>
NormGrads batch_norm_backward_typed(const Tensor& grad, const Tensor& x, const Tensor& mean, const Tensor& invstd,
                                    const Tensor& gamma, bool batch_stats, bool want_x, bool want_gamma,
                                    bool want_beta) {
  const int64_t C = last_dim(x), M = C == 0 ? 0 : x.numel() / C;
  const T *xp = x.data<T>(), *gp = grad.data<T>();
  const Indexer xa = indexer_of(x), ga = indexer_of(grad);
  const double *mp = mean.data<double>(), *ip = invstd.data<double>();
  NormGrads out;
  // sums[c] = sum of g, sums[C + c] = sum of g * (x - mean): what dgamma, dbeta and the
  // batch-statistics terms of dx need.
  Tensor sums;
  if (batch_stats || want_gamma || want_beta)
    sums = column_sums(M, 2 * C, x.device(), [=] STRATA_HD(int64_t r, int64_t j) -> double {
      const int64_t c = j < C ? j : j - C;
      const T g = gp[ga(r * C + c)];
      return j < C ? g : g * (static_cast<double>(xp[xa(r * C + c)]) - mp[c]);
    });
  const double* sp = sums.defined() ? sums.data<double>() : nullptr;
  if (want_gamma) {
    out.gamma = Tensor::empty(Shape{C}, x.dtype(), x.device());
    T* dg = out.gamma.data<T>();
    for_each_index(C, "batch_norm backward", [=] STRATA_HD(int64_t c) { dg[c] = static_cast<T>(sp[C + c] * ip[c]); });
  }
  if (want_beta) out.beta = cast(sums.as_strided(Shape{C}, Shape{1}, 0), x.dtype());
  if (!want_x) return out;
  // dx = g * A + x * B + D per channel. With k = gamma * invstd: A = k, and with batch
  // statistics B = -k * invstd^2 * sum(g (x - mean)) / M, D = -k * sum(g) / M - B * mean.
  out.x = Tensor::empty(x.shape(), x.dtype(), x.device());
  T* dx = out.x.data<T>();
  const Param<T> gam = param<T>(gamma, T(1));
  const double rows = static_cast<double>(M);
  for_each_index(out.x.numel(), "batch_norm backward", [=] STRATA_HD(int64_t i) {
    const int64_t c = i % C;
    const double k = gam[c] * ip[c];
    T b = 0, d = 0;
    if (batch_stats) {
      const double bc = -k * ip[c] * ip[c] * sp[C + c] / rows;
      b = static_cast<T>(bc);
      d = static_cast<T>(-k * sp[c] / rows - bc * mp[c]);
    }
    dx[i] = gp[ga(i)] * static_cast<T>(k) + xp[xa(i)] * b + d;
  });
  return out;
}

// One thread per row for the statistics, then one per element for y.
template <class T>
void layer_norm_forward_typed(const Tensor& x, int64_t n, const Tensor& gamma, const Tensor& beta, double eps,
                              LayerNormOut& out) {
  const T* xp = x.data<T>();
  const Indexer xa = indexer_of(x);
  T *yp = out.y.data<T>(), *mp = out.mean.data<T>(), *rp = out.rstd.data<T>();
  const double width = static_cast<double>(n);
  for_each_index(out.mean.numel(), "layer_norm", [=] STRATA_HD(int64_t r) {
    double s = 0;
    for (int64_t i = r * n; i < (r + 1) * n; ++i) s += xp[xa(i)];
    const T mt = static_cast<T>(s / width);
    double v = 0;
    for (int64_t i = r * n; i < (r + 1) * n; ++i) {
      const T d = xp[xa(i)] - mt;
      v += d * d;
    }
    mp[r] = mt;
    rp[r] = static_cast<T>(1.0 / std::sqrt(v / width + eps));
  });
  const Param<T> gam = param<T>(gamma, T(1)), bet = param<T>(beta, T(0));
  for_each_index(out.y.numel(), "layer_norm", [=] STRATA_HD(int64_t i) {
    const int64_t r = i / n, k = i - r * n;
    yp[i] = (xp[xa(i)] - mp[r]) * rp[r] * gam[k] + bet[k];
  });
}

template <class T>
NormGrads layer_norm_backward_typed(const Tensor& grad, const Tensor& x, int64_t n, const Tensor& mean,
                                    const Tensor& rstd, const Tensor& gamma, bool want_x, bool want_gamma,
                                    bool want_beta) {
  const int64_t M = n == 0 ? 0 : x.numel() / n;
  const T *xp = x.data<T>(), *gp = grad.data<T>(), *mp = mean.data<T>(), *rp = rstd.data<T>();
  const Indexer xa = indexer_of(x), ga = indexer_of(grad);
  NormGrads out;
  if (want_gamma || want_beta) {
    // sums[i] = sum over rows of g * xhat (dgamma), sums[n + i] = sum of g (dbeta).
    const Tensor sums = column_sums(M, 2 * n, x.device(), [=] STRATA_HD(int64_t r, int64_t j) -> double {
      const int64_t i = r * n + (j < n ? j : j - n);
      const T g = gp[ga(i)];
      return j < n ? g * ((xp[xa(i)] - mp[r]) * rp[r]) : g;
    });
    if (want_gamma) out.gamma = cast(sums.as_strided(Shape{n}, Shape{1}, 0), x.dtype());
    if (want_beta) out.beta = cast(sums.as_strided(Shape{n}, Shape{1}, n), x.dtype());
  }
  if (!want_x) return out;
  // dx = rstd * (gy - mean(gy) - xhat * mean(gy * xhat)), gy = g * gamma: the two means per row
  // (one thread each) into `means` [M, 2], then one thread per element.
  const Param<T> gam = param<T>(gamma, T(1));
  Tensor means = Tensor::empty(Shape{M, 2}, x.dtype(), x.device());
  T* ms = means.data<T>();
  const double width = static_cast<double>(n);
  for_each_index(M, "layer_norm backward", [=] STRATA_HD(int64_t r) {
    double a = 0, b = 0;
    for (int64_t k = 0; k < n; ++k) {
      const int64_t i = r * n + k;
      const T gy = gp[ga(i)] * gam[k];
      a += gy;
      b += gy * ((xp[xa(i)] - mp[r]) * rp[r]);
    }
    ms[2 * r] = static_cast<T>(a / width);
    ms[2 * r + 1] = static_cast<T>(b / width);
  });
  out.x = Tensor::empty(x.shape(), x.dtype(), x.device());
  T* dx = out.x.data<T>();
  for_each_index(out.x.numel(), "layer_norm backward", [=] STRATA_HD(int64_t i) {
    const int64_t r = i / n, k = i - r * n;
    const T rt = rp[r];
    dx[i] = rt * (gp[ga(i)] * gam[k] - ms[2 * r] - (xp[xa(i)] - mp[r]) * rt * ms[2 * r + 1]);
  });
  return out;
}

}  // namespace

ChannelStats channel_mean_var(const Tensor& x) {
  const int64_t C = last_dim(x), M = C == 0 ? 0 : x.numel() / C;
  return dispatch_floating(x.dtype(), "batch_norm", [&](auto tag) {
    return channel_mean_var_typed<typename decltype(tag)::type>(x, M, C);
  });
}

Tensor batch_norm_apply(const Tensor& x, const std::vector<double>& mean, const std::vector<double>& invstd,
                        const Tensor& gamma, const Tensor& beta) {
  Tensor y = Tensor::empty(x.shape(), x.dtype(), x.device());
  dispatch_floating(x.dtype(), "batch_norm", [&](auto tag) {
    batch_norm_apply_typed<typename decltype(tag)::type>(x, y, on_device(mean, x.device()),
                                                          on_device(invstd, x.device()), gamma, beta, last_dim(x));
  });
  return y;
}

NormGrads batch_norm_backward(const Tensor& grad, const Tensor& x, const std::vector<double>& mean,
                              const std::vector<double>& invstd, const Tensor& gamma, bool batch_stats, bool want_x,
                              bool want_gamma, bool want_beta) {
  return dispatch_floating(x.dtype(), "batch_norm backward", [&](auto tag) {
    return batch_norm_backward_typed<typename decltype(tag)::type>(
        grad_as(grad, x), x, on_device(mean, x.device()), on_device(invstd, x.device()), gamma, batch_stats, want_x,
        want_gamma, want_beta);
  });
}

LayerNormOut layer_norm_forward(const Tensor& x, int64_t n, const Tensor& gamma, const Tensor& beta, double eps) {
  const int64_t M = n == 0 ? 0 : x.numel() / n;
  LayerNormOut out{Tensor::empty(x.shape(), x.dtype(), x.device()), Tensor::empty(Shape{M}, x.dtype(), x.device()),
                   Tensor::empty(Shape{M}, x.dtype(), x.device())};
  dispatch_floating(x.dtype(), "layer_norm", [&](auto tag) {
    layer_norm_forward_typed<typename decltype(tag)::type>(x, n, gamma, beta, eps, out);
  });
  return out;
}

NormGrads layer_norm_backward(const Tensor& grad, const Tensor& x, int64_t n, const Tensor& mean, const Tensor& rstd,
                              const Tensor& gamma, bool want_x, bool want_gamma, bool want_beta) {
  return dispatch_floating(x.dtype(), "layer_norm backward", [&](auto tag) {
    return layer_norm_backward_typed<typename decltype(tag)::type>(grad_as(grad, x), x, n, mean, rstd, gamma, want_x,
                                                                    want_gamma, want_beta);
  });
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
