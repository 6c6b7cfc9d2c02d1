// The LSTM and GRU cells (strata/dispatch/rnn.hpp), with the CPU's formulas (cpu/rnn_cells.cpp):
// one thread per (batch, unit) element. Gate inputs, states and incoming gradients are read
// through Indexers (they may be strided views); act and the results are contiguous.
#include "kernels/cuda/indexer.hpp"
#include "kernels/cuda/rnn.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {
namespace {

using dispatch::GruCellGrads;
using dispatch::GruCellOut;
using dispatch::LstmCellGrads;
using dispatch::LstmCellOut;

// Element i (row-major) of a tensor, through its Indexer.
template <class T>
struct View {
  const T* p;
  Indexer at;
  STRATA_HD T operator[](int64_t i) const { return p[at(i)]; }
};
template <class T>
View<T> view_of(const Tensor& t) {
  return {t.data<T>(), indexer_of(t)};
}

template <class T>
STRATA_HD T sigmoid(T v) {
  return T(1) / (T(1) + std::exp(-v));
}

// act holds i, f, g, o and tanh(c') per row: all the backward needs besides c.
template <class T>
void lstm_forward_typed(const Tensor& x_gates, const Tensor& h_gates, const Tensor& c, LstmCellOut& out) {
  const int64_t H = c.shape()[1];
  const View<T> xg = view_of<T>(x_gates), hg = view_of<T>(h_gates), cp = view_of<T>(c);
  T *act = out.act.data<T>(), *ho = out.h.data<T>(), *co = out.c.data<T>();
  for_each_index(out.h.numel(), "lstm_cell", [=] STRATA_HD(int64_t e) {
    const int64_t b = e / H, j = e - b * H, g0 = b * 4 * H + j;
    auto gate = [&](int k) { return xg[g0 + k * H] + hg[g0 + k * H]; };
    const T i = sigmoid(gate(0)), f = sigmoid(gate(1)), g = std::tanh(gate(2)), o = sigmoid(gate(3));
    const T cn = f * cp[e] + i * g, tc = std::tanh(cn);
    T* a = act + b * 5 * H + j;
    a[0] = i, a[H] = f, a[2 * H] = g, a[3 * H] = o, a[4 * H] = tc;
    co[e] = cn;
    ho[e] = o * tc;
  });
}

template <class T>
void lstm_backward_typed(const Tensor& act, const Tensor& c, const Tensor& dh, const Tensor& dc, LstmCellGrads& out) {
  const int64_t H = c.shape()[1];
  const T* ap = act.data<T>();
  const View<T> cp = view_of<T>(c), dhv = view_of<T>(dh), dcv = view_of<T>(dc);
  T *dgates = out.gates.data<T>(), *dcp = out.c.data<T>();
  for_each_index(out.c.numel(), "lstm_cell backward", [=] STRATA_HD(int64_t e) {
    const int64_t b = e / H, j = e - b * H;
    const T* a = ap + b * 5 * H + j;
    const T i = a[0], f = a[H], g = a[2 * H], o = a[3 * H], tc = a[4 * H], d = dhv[e];
    const T dct = dcv[e] + d * o * (T(1) - tc * tc);
    T* dg = dgates + b * 4 * H + j;
    dg[0] = dct * g * i * (T(1) - i);
    dg[H] = dct * cp[e] * f * (T(1) - f);
    dg[2 * H] = dct * i * (T(1) - g * g);
    dg[3 * H] = d * tc * o * (T(1) - o);
    dcp[e] = dct * f;
  });
}

// act holds z, r, n per row; the backward also reads h_n from h_gates.
template <class T>
void gru_forward_typed(const Tensor& x_gates, const Tensor& h_gates, const Tensor& h, GruCellOut& out) {
  const int64_t H = h.shape()[1];
  const View<T> xg = view_of<T>(x_gates), hg = view_of<T>(h_gates), hp = view_of<T>(h);
  T *act = out.act.data<T>(), *ho = out.h.data<T>();
  for_each_index(out.h.numel(), "gru_cell", [=] STRATA_HD(int64_t e) {
    const int64_t b = e / H, j = e - b * H, g0 = b * 3 * H + j;
    const T z = sigmoid(xg[g0] + hg[g0]);
    const T r = sigmoid(xg[g0 + H] + hg[g0 + H]);
    const T n = std::tanh(xg[g0 + 2 * H] + r * hg[g0 + 2 * H]);
    act[g0] = z, act[g0 + H] = r, act[g0 + 2 * H] = n;
    ho[e] = z * hp[e] + (T(1) - z) * n;
  });
}

template <class T>
void gru_backward_typed(const Tensor& act, const Tensor& h_gates, const Tensor& h, const Tensor& dh,
                        GruCellGrads& out) {
  const int64_t H = h.shape()[1];
  const T* ap = act.data<T>();
  const View<T> hg = view_of<T>(h_gates), hp = view_of<T>(h), dhv = view_of<T>(dh);
  T *dx = out.x_gates.data<T>(), *dr = out.h_gates.data<T>(), *dp = out.h.data<T>();
  for_each_index(out.h.numel(), "gru_cell backward", [=] STRATA_HD(int64_t e) {
    const int64_t b = e / H, j = e - b * H, g0 = b * 3 * H + j;
    const T z = ap[g0], r = ap[g0 + H], n = ap[g0 + 2 * H], d = dhv[e];
    const T dz = d * (hp[e] - n) * z * (T(1) - z);
    const T dn = d * (T(1) - z) * (T(1) - n * n);
    const T drr = dn * hg[g0 + 2 * H] * r * (T(1) - r);
    dx[g0] = dr[g0] = dz;
    dx[g0 + H] = dr[g0 + H] = drr;
    dx[g0 + 2 * H] = dn;
    dr[g0 + 2 * H] = dn * r;
    dp[e] = d * z;
  });
}

}  // namespace

LstmCellOut lstm_cell_forward(const Tensor& x_gates, const Tensor& h_gates, const Tensor& c) {
  const int64_t B = c.shape()[0], H = c.shape()[1];
  const Device dev = c.device();
  LstmCellOut out{Tensor::empty({B, H}, c.dtype(), dev), Tensor::empty({B, H}, c.dtype(), dev),
                  Tensor::empty({B, 5 * H}, c.dtype(), dev)};
  dispatch_floating(c.dtype(), "lstm_cell", [&](auto tag) {
    lstm_forward_typed<typename decltype(tag)::type>(x_gates, h_gates, c, out);
  });
  return out;
}

LstmCellGrads lstm_cell_backward(const Tensor& act, const Tensor& c, const Tensor& dh, const Tensor& dc) {
  const int64_t B = c.shape()[0], H = c.shape()[1];
  LstmCellGrads out{Tensor::empty({B, 4 * H}, act.dtype(), act.device()),
                    Tensor::empty({B, H}, act.dtype(), act.device())};
  dispatch_floating(act.dtype(), "lstm_cell backward", [&](auto tag) {
    lstm_backward_typed<typename decltype(tag)::type>(act, c, dh, dc, out);
  });
  return out;
}

GruCellOut gru_cell_forward(const Tensor& x_gates, const Tensor& h_gates, const Tensor& h) {
  const int64_t B = h.shape()[0], H = h.shape()[1];
  GruCellOut out{Tensor::empty({B, H}, h.dtype(), h.device()), Tensor::empty({B, 3 * H}, h.dtype(), h.device())};
  dispatch_floating(h.dtype(), "gru_cell", [&](auto tag) {
    gru_forward_typed<typename decltype(tag)::type>(x_gates, h_gates, h, out);
  });
  return out;
}

GruCellGrads gru_cell_backward(const Tensor& act, const Tensor& h_gates, const Tensor& h, const Tensor& dh) {
  const int64_t B = h.shape()[0], H = h.shape()[1];
  const Device dev = act.device();
  GruCellGrads out{Tensor::empty({B, 3 * H}, act.dtype(), dev), Tensor::empty({B, 3 * H}, act.dtype(), dev),
                   Tensor::empty({B, H}, act.dtype(), dev)};
  dispatch_floating(act.dtype(), "gru_cell backward", [&](auto tag) {
    gru_backward_typed<typename decltype(tag)::type>(act, h_gates, h, dh, out);
  });
  return out;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
