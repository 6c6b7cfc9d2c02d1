// Max and average pooling (strata/dispatch/pool.hpp) over channels-last tensors, with the CPU's
// reference semantics (cpu/pool_reference.hpp): the first maximal tap of a window wins, padding
// never does, and averages count only the taps inside the input. The forward runs one thread per
// output element. The backward runs one per input element and gathers the outputs whose windows
// hold it, in increasing order as the CPU adds them (no atomics); a max recomputes its winner
// from x, so the forward keeps no workspace.
#include "kernels/cuda/indexer.hpp"
#include "kernels/cuda/pool.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {
namespace {

using dispatch::PoolGeometry;
using dispatch::Window;
using Pos = int64_t[3];

// Spatial position p of the flat index r over `size` (one sample's spatial axes).
STRATA_HD inline void unflatten(int64_t r, const Window::Axes& size, Pos& p) {
  p[2] = r % size[2];
  r /= size[2];
  p[1] = r % size[1];
  p[0] = r / size[1];
}

// The input position of tap k of output position o along axis a; false when it is padding.
STRATA_HD inline bool tap_at(const Window& w, int a, int64_t o, int64_t k, int64_t& i) {
  i = o * w.stride[a] - w.pad_before[a] + k * w.dilation[a];
  return i >= 0 && i < w.in[a];
}

// Calls f(flat input position) for every tap of output position o inside the input, in the
// CPU's order.
template <class F>
STRATA_HD void for_each_tap(const Window& w, const Pos& o, F f) {
  int64_t i0, i1, i2;
  for (int64_t k0 = 0; k0 < w.kernel[0]; ++k0) {
    if (!tap_at(w, 0, o[0], k0, i0)) continue;
    for (int64_t k1 = 0; k1 < w.kernel[1]; ++k1) {
      if (!tap_at(w, 1, o[1], k1, i1)) continue;
      for (int64_t k2 = 0; k2 < w.kernel[2]; ++k2)
        if (tap_at(w, 2, o[2], k2, i2)) f((i0 * w.in[1] + i1) * w.in[2] + i2);
    }
  }
}

// How many taps of output position o lie inside the input: an average's divisor.
STRATA_HD inline int64_t tap_count(const Window& w, const Pos& o) {
  int64_t count = 1, i;
  for (int a = 0; a < 3; ++a) {
    int64_t inside = 0;
    for (int64_t k = 0; k < w.kernel[a]; ++k) inside += tap_at(w, a, o[a], k, i);
    count *= inside;
  }
  return count;
}

// Channel c of sample n of x [N, in..., C], read through its Indexer.
template <class T>
struct Input {
  const T* p;
  Indexer at;
  int64_t rows, channels;
  STRATA_HD T operator()(int64_t n, int64_t pos, int64_t c) const { return p[at((n * rows + pos) * channels + c)]; }
};

// The winning input position of a max over output position o's window, and its value.
template <class T>
struct Winner {
  int64_t pos = -1;
  T value = T(0);
};
template <class T>
STRATA_HD Winner<T> window_max(const Window& w, const Input<T>& x, int64_t n, const Pos& o, int64_t c) {
  Winner<T> best;
  for_each_tap(w, o, [&](int64_t pos) {
    const T v = x(n, pos, c);
    if (best.pos < 0 || v > best.value) best = {pos, v};
  });
  return best;
}

template <class T>
void pool_forward_typed(const Tensor& x, Tensor& y, const PoolGeometry& g) {
  const Window w = g.win;
  const Input<T> in{x.data<T>(), indexer_of(x), w.in_size(), g.channels};
  const int64_t C = g.channels, out_rows = w.out_size();
  const bool max = g.max;
  T* yp = y.data<T>();
  for_each_index(y.numel(), "pool_forward", [=] STRATA_HD(int64_t i) {
    const int64_t c = i % C, n = i / C / out_rows;
    Pos o;
    unflatten(i / C % out_rows, w.out, o);
    if (max) {
      yp[i] = window_max(w, in, n, o, c).value;
      return;
    }
    T sum = 0;
    for_each_tap(w, o, [&](int64_t pos) { sum += in(n, pos, c); });
    yp[i] = sum / static_cast<T>(tap_count(w, o));
  });
}

template <class T>
void pool_backward_typed(const Tensor& dy, const Tensor& x, Tensor& dx, const PoolGeometry& g) {
  const Window w = g.win;
  const int64_t C = g.channels, in_rows = w.in_size();
  const Input<T> grad{dy.data<T>(), indexer_of(dy), w.out_size(), C};
  const Input<T> in{g.max ? x.data<T>() : nullptr, g.max ? indexer_of(x) : Indexer{}, in_rows, C};
  const bool max = g.max;
  T* dxp = dx.data<T>();
  for_each_index(dx.numel(), "pool_backward", [=] STRATA_HD(int64_t j) {
    const int64_t c = j % C, pos = j / C % in_rows, n = j / C / in_rows;
    Pos p;
    unflatten(pos, w.in, p);
    // Along each axis, the output whose tap k lands on p: k descending gives outputs ascending.
    auto output_of = [&](int a, int64_t k, int64_t& o) {
      const int64_t t = p[a] + w.pad_before[a] - k * w.dilation[a];
      o = t / w.stride[a];
      return t >= 0 && t % w.stride[a] == 0 && o < w.out[a];
    };
    T acc = 0;
    Pos o;
    for (int64_t k0 = w.kernel[0] - 1; k0 >= 0; --k0) {
      if (!output_of(0, k0, o[0])) continue;
      for (int64_t k1 = w.kernel[1] - 1; k1 >= 0; --k1) {
        if (!output_of(1, k1, o[1])) continue;
        for (int64_t k2 = w.kernel[2] - 1; k2 >= 0; --k2) {
          if (!output_of(2, k2, o[2])) continue;
          const T d = grad(n, (o[0] * w.out[1] + o[1]) * w.out[2] + o[2], c);
          if (!max)
            acc += d / static_cast<T>(tap_count(w, o));
          else if (window_max(w, in, n, o, c).pos == pos)
            acc += d;
        }
      }
    }
    dxp[j] = acc;
  });
}

}  // namespace

// The backward recomputes a max's winners from x, so `workspace` stays empty.
Tensor pool_forward(const Tensor& x, const PoolGeometry& g, std::shared_ptr<dispatch::PoolWorkspace>*) {
  Tensor y = Tensor::empty(g.win.activation_shape(g.win.out, g.channels), x.dtype(), x.device());
  if (x.dtype() != kFloat64) x.check_dtype(kFloat32, "pool_forward");
  dispatch_floating(x.dtype(), "pool_forward", [&](auto tag) {
    pool_forward_typed<typename decltype(tag)::type>(x, y, g);
  });
  return y;
}

Tensor pool_backward(const Tensor& dy, const Tensor& x, const PoolGeometry& g,
                     const std::shared_ptr<dispatch::PoolWorkspace>&) {
  Tensor dx = Tensor::empty(g.win.activation_shape(g.win.in, g.channels), dy.dtype(), dy.device());
  if (dy.dtype() != kFloat64) dy.check_dtype(kFloat32, "pool_backward");
  dispatch_floating(dy.dtype(), "pool_backward", [&](auto tag) {
    pool_backward_typed<typename decltype(tag)::type>(dy, x, dx, g);
  });
  return dx;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
