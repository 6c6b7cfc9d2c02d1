// The LSTM and GRU cell CPU kernels (strata/dispatch/rnn.hpp documents them): one pass over
// [batch, units] each way. The loops over units are `omp simd`: their rows never overlap, which
// the compiler cannot prove, and without vectors the cell took a third of an LSTM's forward time.
#include "kernels/cpu/rnn_cells.hpp"

#include "kernels/cpu/partial_sums.hpp"
#include "kernels/cpu/scalar_math.hpp"

namespace strata::kernels::cpu {
namespace {

// Row b of a 2-D tensor whose rows have unit stride (a time step sliced out of a
// [batch, time, gates] projection is one, so it is read in place).
template <class T>
struct Rows {
  const T* p;
  int64_t stride;
  const T* operator[](int64_t b) const { return p + b * stride; }
};

template <class T>
Rows<T> rows(const Tensor& t) {
  return {t.data<T>(), t.strides()[0]};
}

// The tensor itself when its rows have unit stride, else a contiguous copy.
Tensor unit_rows(const Tensor& t) { return t.strides()[1] == 1 ? t : contiguous_copy(t); }

// act holds i, f, g, o and tanh(c') per row: all the backward needs besides c.
template <class T>
void lstm_forward(Rows<T> xg, Rows<T> hg, Rows<T> c, int64_t B, int64_t H, T* act, T* h_out, T* c_out) {
  for (int64_t b = 0; b < B; ++b) {
    const T *x = xg[b], *hh = hg[b], *cp = c[b];
    T* a = act + b * 5 * H;
    T *ho = h_out + b * H, *co = c_out + b * H;
#pragma omp simd
    for (int64_t j = 0; j < H; ++j) {
      T i = math::sigmoid(x[j] + hh[j]);
      T f = math::sigmoid(x[H + j] + hh[H + j]);
      T g = math::tanh(x[2 * H + j] + hh[2 * H + j]);
      T o = math::sigmoid(x[3 * H + j] + hh[3 * H + j]);
      T cn = f * cp[j] + i * g;
      T tc = math::tanh(cn);
      a[j] = i, a[H + j] = f, a[2 * H + j] = g, a[3 * H + j] = o, a[4 * H + j] = tc;
      co[j] = cn;
      ho[j] = o * tc;
    }
  }
}

template <class T>
void lstm_backward(const T* act, Rows<T> c, const T* dh, const T* dc, int64_t B, int64_t H, T* dgates, T* dc_prev) {
  for (int64_t b = 0; b < B; ++b) {
    const T *a = act + b * 5 * H, *cp = c[b], *dhb = dh + b * H, *dcb = dc + b * H;
    T *dg = dgates + b * 4 * H, *dcp = dc_prev + b * H;
#pragma omp simd
    for (int64_t j = 0; j < H; ++j) {
      T i = a[j], f = a[H + j], g = a[2 * H + j], o = a[3 * H + j], tc = a[4 * H + j];
      T dct = dcb[j] + dhb[j] * o * (T(1) - tc * tc);
      dg[j] = dct * g * i * (T(1) - i);
      dg[H + j] = dct * cp[j] * f * (T(1) - f);
      dg[2 * H + j] = dct * i * (T(1) - g * g);
      dg[3 * H + j] = dhb[j] * tc * o * (T(1) - o);
      dcp[j] = dct * f;
    }
  }
}

// act holds z, r, n per row; the backward also reads h_n from h_gates.
template <class T>
void gru_forward(Rows<T> xg, Rows<T> hg, Rows<T> h, int64_t B, int64_t H, T* act, T* h_out) {
  for (int64_t b = 0; b < B; ++b) {
    const T *x = xg[b], *hh = hg[b], *hp = h[b];
    T *a = act + b * 3 * H, *ho = h_out + b * H;
#pragma omp simd
    for (int64_t j = 0; j < H; ++j) {
      T z = math::sigmoid(x[j] + hh[j]);
      T r = math::sigmoid(x[H + j] + hh[H + j]);
      T n = math::tanh(x[2 * H + j] + r * hh[2 * H + j]);
      a[j] = z, a[H + j] = r, a[2 * H + j] = n;
      ho[j] = z * hp[j] + (T(1) - z) * n;
    }
  }
}

template <class T>
void gru_backward(const T* act, Rows<T> hg, Rows<T> h, const T* dh, int64_t B, int64_t H, T* dxg, T* dhg,
                  T* dh_prev) {
  for (int64_t b = 0; b < B; ++b) {
    const T *a = act + b * 3 * H, *hh = hg[b], *hp = h[b], *d = dh + b * H;
    T *dx = dxg + b * 3 * H, *dr = dhg + b * 3 * H, *dp = dh_prev + b * H;
#pragma omp simd
    for (int64_t j = 0; j < H; ++j) {
      T z = a[j], r = a[H + j], n = a[2 * H + j];
      T dz = d[j] * (hp[j] - n) * z * (T(1) - z);
      T dn = d[j] * (T(1) - z) * (T(1) - n * n);
      T drr = dn * hh[2 * H + j] * r * (T(1) - r);
      dx[j] = dr[j] = dz;
      dx[H + j] = dr[H + j] = drr;
      dx[2 * H + j] = dn;
      dr[2 * H + j] = dn * r;
      dp[j] = d[j] * z;
    }
  }
}

}  // namespace

LstmCellOut lstm_cell_forward(const Tensor& x_gates, const Tensor& h_gates, const Tensor& c) {
  const Tensor xg = unit_rows(x_gates), hg = unit_rows(h_gates), cp = unit_rows(c);
  const int64_t B = c.shape()[0], H = c.shape()[1];
  const Device dev = c.device();
  LstmCellOut out{Tensor::empty({B, H}, c.dtype(), dev), Tensor::empty({B, H}, c.dtype(), dev),
                  Tensor::empty({B, 5 * H}, c.dtype(), dev)};
  dispatch_floating(c.dtype(), "lstm_cell", [&](auto tag) {
    using T = typename decltype(tag)::type;
    lstm_forward<T>(rows<T>(xg), rows<T>(hg), rows<T>(cp), B, H, out.act.data<T>(), out.h.data<T>(), out.c.data<T>());
  });
  return out;
}

LstmCellGrads lstm_cell_backward(const Tensor& act, const Tensor& c, const Tensor& dh_in, const Tensor& dc_in) {
  const Tensor cp = unit_rows(c), dh = dense(dh_in), dc = dense(dc_in);
  const int64_t B = c.shape()[0], H = c.shape()[1];
  LstmCellGrads out{Tensor::empty({B, 4 * H}, act.dtype(), act.device()),
                    Tensor::empty({B, H}, act.dtype(), act.device())};
  dispatch_floating(act.dtype(), "lstm_cell backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    lstm_backward<T>(act.data<T>(), rows<T>(cp), dh.data<T>(), dc.data<T>(), B, H, out.gates.data<T>(), out.c.data<T>());
  });
  return out;
}

GruCellOut gru_cell_forward(const Tensor& x_gates, const Tensor& h_gates, const Tensor& h) {
  const Tensor xg = unit_rows(x_gates), hg = unit_rows(h_gates), hp = unit_rows(h);
  const int64_t B = h.shape()[0], H = h.shape()[1];
  GruCellOut out{Tensor::empty({B, H}, h.dtype(), h.device()), Tensor::empty({B, 3 * H}, h.dtype(), h.device())};
  dispatch_floating(h.dtype(), "gru_cell", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gru_forward<T>(rows<T>(xg), rows<T>(hg), rows<T>(hp), B, H, out.act.data<T>(), out.h.data<T>());
  });
  return out;
}

GruCellGrads gru_cell_backward(const Tensor& act, const Tensor& h_gates, const Tensor& h, const Tensor& dh_in) {
  const Tensor hg = unit_rows(h_gates), hp = unit_rows(h), dh = dense(dh_in);
  const int64_t B = h.shape()[0], H = h.shape()[1];
  const Device dev = act.device();
  GruCellGrads out{Tensor::empty({B, 3 * H}, act.dtype(), dev), Tensor::empty({B, 3 * H}, act.dtype(), dev),
                   Tensor::empty({B, H}, act.dtype(), dev)};
  dispatch_floating(act.dtype(), "gru_cell backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gru_backward<T>(act.data<T>(), rows<T>(hg), rows<T>(hp), dh.data<T>(), B, H, out.x_gates.data<T>(),
                    out.h_gates.data<T>(), out.h.data<T>());
  });
  return out;
}

}  // namespace strata::kernels::cpu
