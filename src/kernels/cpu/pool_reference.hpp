// Pooling loops for dtypes oneDNN does not compute in (float64). Pointers are to contiguous
// buffers: x [N, in..., C], y [N, out..., C]. The first maximal element of a window wins.
#pragma once
#include <algorithm>
#include <limits>
#include <vector>

#include "kernels/cpu/pool_kernels.hpp"

namespace strata::kernels::cpu {

// Calls fn(n, out_index, in_index) for every in-bounds tap; returns per-output tap counts.
template <class F>
std::vector<int64_t> pool_reference_walk(const PoolGeometry& g, F&& fn) {
  std::vector<int64_t> count(g.win.out_size(), 0);
  for (int64_t n = 0; n < g.win.batch; ++n)
    for_each_tap(g.win, [&](int64_t out_index, int64_t in_index, int64_t) {
      if (n == 0) ++count[out_index];
      fn(n, out_index, in_index);
    });
  return count;
}

// For max pooling, the winning input position of every output element (flat spatial index).
template <class T>
std::vector<int64_t> pool_reference_argmax(const PoolGeometry& g, const T* x) {
  const int64_t C = g.channels, out_rows = g.win.out_size(), in_rows = g.win.in_size();
  std::vector<int64_t> arg(g.win.batch * out_rows * C, -1);
  pool_reference_walk(g, [&](int64_t n, int64_t o, int64_t i) {
    const T* xp = x + (n * in_rows + i) * C;
    int64_t* ap = arg.data() + (n * out_rows + o) * C;
    for (int64_t c = 0; c < C; ++c)
      if (ap[c] < 0 || xp[c] > x[(n * in_rows + ap[c]) * C + c]) ap[c] = i;
  });
  return arg;
}

template <class T>
void pool_reference_forward(const PoolGeometry& g, const T* x, T* y) {
  const int64_t C = g.channels, out_rows = g.win.out_size(), in_rows = g.win.in_size();
  if (g.max) {
    std::vector<int64_t> arg = pool_reference_argmax(g, x);
    for (int64_t n = 0; n < g.win.batch; ++n)
      for (int64_t r = 0; r < out_rows * C; ++r)
        y[n * out_rows * C + r] = x[(n * in_rows + arg[n * out_rows * C + r] ) * C + r % C];
    return;
  }
  std::fill(y, y + g.win.batch * out_rows * C, T(0));
  auto count = pool_reference_walk(g, [&](int64_t n, int64_t o, int64_t i) {
    for (int64_t c = 0; c < C; ++c) y[(n * out_rows + o) * C + c] += x[(n * in_rows + i) * C + c];
  });
  for (int64_t n = 0; n < g.win.batch; ++n)
    for (int64_t r = 0; r < out_rows * C; ++r) y[n * out_rows * C + r] /= T(count[r / C]);
}

template <class T>
void pool_reference_backward(const PoolGeometry& g, const T* x, const T* dy, T* dx) {
  const int64_t C = g.channels, out_rows = g.win.out_size(), in_rows = g.win.in_size();
  std::fill(dx, dx + g.win.batch * in_rows * C, T(0));
  if (g.max) {
    std::vector<int64_t> arg = pool_reference_argmax(g, x);
    for (int64_t n = 0; n < g.win.batch; ++n)
      for (int64_t r = 0; r < out_rows * C; ++r)
        dx[(n * in_rows + arg[n * out_rows * C + r]) * C + r % C] += dy[n * out_rows * C + r];
    return;
  }
  auto count = pool_reference_walk(g, [](int64_t, int64_t, int64_t) {});
  pool_reference_walk(g, [&](int64_t n, int64_t o, int64_t i) {
    for (int64_t c = 0; c < C; ++c)
      dx[(n * in_rows + i) * C + c] += dy[(n * out_rows + o) * C + c] / T(count[o]);
  });
}

}  // namespace strata::kernels::cpu
