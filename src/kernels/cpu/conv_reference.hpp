// Direct convolution loops for dtypes oneDNN does not compute in (float64): one pass over
// every (output position, kernel tap) pair. Correct and simple; speed does not matter here.
// Pointers are to contiguous buffers: x [N, in..., C], w [k..., C / groups, O], y [N, out..., O].
#pragma once
#include <algorithm>

#include "kernels/cpu/loops.hpp"
#include "kernels/cpu/spatial_window.hpp"

namespace strata::kernels::cpu {

// Calls fn(x_sample, y_sample, xc, yc, w_tap) for each group and tap, with xc / yc the channel
// offsets of the group, over samples split across threads (each sample's writes are its own,
// except to the weights in backward weights, which the caller serialises).
template <class T, class F>
void conv_reference_walk(const ConvGeometry& g, T* x, T* y, T* w, bool parallel_samples, F&& fn) {
  const Window& win = g.win;
  const int64_t C = g.in_channels, O = g.out_channels, Cg = C / g.groups, Og = O / g.groups;
  auto samples = [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n) {
      T* xs = x + n * win.in_size() * C;
      T* ys = y + n * win.out_size() * O;
      for_each_tap(win, [&](int64_t out_index, int64_t in_index, int64_t tap) {
        for (int64_t grp = 0; grp < g.groups; ++grp)
          fn(xs + in_index * C + grp * Cg, ys + out_index * O + grp * Og, w + tap * Cg * O + grp * Og, Cg, Og, O);
      });
    }
  };
  if (parallel_samples) parallel_for(win.batch, 1, samples);
  else samples(0, win.batch);
}

template <class T>
void conv_reference_forward(const ConvGeometry& g, const T* x, const T* w, const T* b, T* y) {
  const int64_t O = g.out_channels, rows = g.win.batch * g.win.out_size();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t o = 0; o < O; ++o) y[r * O + o] = b ? b[o] : T(0);
  conv_reference_walk<T>(g, const_cast<T*>(x), y, const_cast<T*>(w), true,
                         [](T* xp, T* yp, T* wp, int64_t Cg, int64_t Og, int64_t O) {
                           for (int64_t c = 0; c < Cg; ++c)
                             for (int64_t o = 0; o < Og; ++o) yp[o] += xp[c] * wp[c * O + o];
                         });
}

template <class T>
void conv_reference_backward_data(const ConvGeometry& g, const T* dy, const T* w, T* dx) {
  std::fill(dx, dx + g.win.batch * g.win.in_size() * g.in_channels, T(0));
  conv_reference_walk<T>(g, dx, const_cast<T*>(dy), const_cast<T*>(w), true,
                         [](T* xp, T* yp, T* wp, int64_t Cg, int64_t Og, int64_t O) {
                           for (int64_t c = 0; c < Cg; ++c)
                             for (int64_t o = 0; o < Og; ++o) xp[c] += yp[o] * wp[c * O + o];
                         });
}

// db may be null.
template <class T>
void conv_reference_backward_weights(const ConvGeometry& g, const T* x, const T* dy, T* dw, T* db) {
  const int64_t O = g.out_channels;
  std::fill(dw, dw + g.win.kernel_size() * (g.in_channels / g.groups) * O, T(0));
  conv_reference_walk<T>(g, const_cast<T*>(x), const_cast<T*>(dy), dw, false,
                         [](T* xp, T* yp, T* wp, int64_t Cg, int64_t Og, int64_t O) {
                           for (int64_t c = 0; c < Cg; ++c)
                             for (int64_t o = 0; o < Og; ++o) wp[c * O + o] += xp[c] * yp[o];
                         });
  if (!db) return;
  std::fill(db, db + O, T(0));
  const int64_t rows = g.win.batch * g.win.out_size();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t o = 0; o < O; ++o) db[o] += dy[r * O + o];
}

}  // namespace strata::kernels::cpu
