// lstm_cell and gru_cell: a forward kernel that keeps the activated gates, and a backward
// kernel that turns them into the gate gradients, one pass over [batch, units] each. The loops
// over units are `omp simd`: their rows never overlap, which the compiler cannot prove, and
// without vectors the cell took a third of an LSTM's forward time.
#include "strata/ops/rnn.hpp"

#include "kernels/cpu/scalar_math.hpp"
#include "ops/op_common.hpp"

namespace strata {
namespace {

namespace math = kernels::cpu::math;

// Row b of a 2-D tensor whose rows have unit stride (a time step sliced out of a
// [batch, time, gates] projection is one, so it is read in place).
template <class T>
struct Rows {
  const T* p;
  int64_t stride;
  const T* operator[](int64_t b) const { return p + b * stride; }
};

Tensor unit_rows(const Tensor& t) { return t.strides()[1] == 1 ? t : t.contiguous(); }

template <class T>
Rows<T> rows(const Tensor& t) {
  return {t.data<T>(), t.strides()[0]};
}

void check_step(const char* op, const Tensor& xg, const Tensor& hg, const Tensor& state, int gates) {
  ops::check_defined(xg, op, "x_gates");
  ops::check_defined(hg, op, "h_gates");
  ops::check_defined(state, op, "state");
  ops::check_floating(state, op);
  STRATA_CHECK(state.dim() == 2, op, ": expected the state as [batch, units], got shape ", state.shape().str());
  const Shape want{state.shape()[0], gates * state.shape()[1]};
  STRATA_CHECK(xg.shape() == want, op, ": expected x_gates of shape ", want.str(), " (", gates,
               " gates for the state's shape ", state.shape().str(), "), got ", xg.shape().str());
  STRATA_CHECK(hg.shape() == want, op, ": expected h_gates of shape ", want.str(), " (", gates,
               " gates for the state's shape ", state.shape().str(), "), got ", hg.shape().str());
  STRATA_CHECK(xg.dtype() == state.dtype() && hg.dtype() == state.dtype(), op,
               ": expected x_gates, h_gates and the state in one dtype, got ", dtype_name(xg.dtype()), ", ",
               dtype_name(hg.dtype()), " and ", dtype_name(state.dtype()));
}

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

std::vector<Tensor> lstm_cell(const Tensor& x_gates, const Tensor& h_gates, const Tensor& c) {
  const char* op = "lstm_cell";
  check_step(op, x_gates, h_gates, c, 4);
  const Tensor xg = unit_rows(x_gates), hg = unit_rows(h_gates), cp = unit_rows(c);
  const int64_t B = c.shape()[0], H = c.shape()[1];
  Tensor act = Tensor::empty({B, 5 * H}, c.dtype()), h_out = Tensor::empty({B, H}, c.dtype()),
         c_out = Tensor::empty({B, H}, c.dtype());
  dispatch_floating(c.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    lstm_forward<T>(rows<T>(xg), rows<T>(hg), rows<T>(cp), B, H, act.data<T>(), h_out.data<T>(), c_out.data<T>());
  });
  if (autograd::needs_grad({&x_gates, &h_gates, &c}))
    ops::record(ops::Op::lstm_cell, {x_gates, h_gates, c}, {h_out, c_out}, [act, cp, B, H](const ops::Grads& g) {
      Tensor dh = g[0].contiguous(), dc = g[1].contiguous();
      Tensor dgates = Tensor::empty({B, 4 * H}, act.dtype()), dc_prev = Tensor::empty({B, H}, act.dtype());
      dispatch_floating(act.dtype(), "lstm_cell backward", [&](auto tag) {
        using T = typename decltype(tag)::type;
        lstm_backward<T>(act.data<T>(), rows<T>(cp), dh.data<T>(), dc.data<T>(), B, H, dgates.data<T>(),
                         dc_prev.data<T>());
      });
      return ops::Grads{dgates, dgates, dc_prev};
    });
  return {h_out, c_out};
}

Tensor gru_cell(const Tensor& x_gates, const Tensor& h_gates, const Tensor& h) {
  const char* op = "gru_cell";
  check_step(op, x_gates, h_gates, h, 3);
  const Tensor xg = unit_rows(x_gates), hg = unit_rows(h_gates), hp = unit_rows(h);
  const int64_t B = h.shape()[0], H = h.shape()[1];
  Tensor act = Tensor::empty({B, 3 * H}, h.dtype()), h_out = Tensor::empty({B, H}, h.dtype());
  dispatch_floating(h.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    gru_forward<T>(rows<T>(xg), rows<T>(hg), rows<T>(hp), B, H, act.data<T>(), h_out.data<T>());
  });
  if (autograd::needs_grad({&x_gates, &h_gates, &h}))
    ops::record(ops::Op::gru_cell, {x_gates, h_gates, h}, {h_out}, [act, hg, hp, B, H](const ops::Grads& g) {
      Tensor dh = g[0].contiguous();
      Tensor dxg = Tensor::empty({B, 3 * H}, act.dtype()), dhg = Tensor::empty({B, 3 * H}, act.dtype()),
             dh_prev = Tensor::empty({B, H}, act.dtype());
      dispatch_floating(act.dtype(), "gru_cell backward", [&](auto tag) {
        using T = typename decltype(tag)::type;
        gru_backward<T>(act.data<T>(), rows<T>(hg), rows<T>(hp), dh.data<T>(), B, H, dxg.data<T>(), dhg.data<T>(),
                        dh_prev.data<T>());
      });
      return ops::Grads{dxg, dhg, dh_prev};
    });
  return h_out;
}

}  // namespace strata
