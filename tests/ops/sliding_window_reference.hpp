// Plain-loop references for the convolution and pooling tests, written from the definitions
// (TensorFlow's SAME/VALID rules, NHWC, weights [k..., C/groups, O]) and independent of the
// library's kernels. Values are doubles in row-major order.
#pragma once
#include <gtest/gtest.h>

#include "support/expect_error.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "strata/strata.hpp"

namespace strata::testing {

using Dims = std::vector<int64_t>;

// The shape [n, spatial..., c].
inline Shape nhwc(int64_t n, const Dims& spatial, int64_t c) {
  Shape s{n};
  for (int64_t v : spatial) s.push_back(v);
  s.push_back(c);
  return s;
}

// One sliding window per spatial axis.
struct RefWindow {
  Dims in, kernel, stride, dilation, pad_before, out;
};

// TensorFlow's output size and leading pad for SAME (or VALID) along every axis.
inline RefWindow ref_window(const Dims& in, const Dims& kernel, const Dims& stride, const Dims& dilation, bool same) {
  RefWindow w{in, kernel, stride, dilation, Dims(in.size()), Dims(in.size())};
  for (size_t a = 0; a < in.size(); ++a) {
    const int64_t k = (kernel[a] - 1) * dilation[a] + 1;
    if (same) {
      w.out[a] = (in[a] + stride[a] - 1) / stride[a];
      w.pad_before[a] = std::max<int64_t>((w.out[a] - 1) * stride[a] + k - in[a], 0) / 2;
    } else {
      w.out[a] = (in[a] - k) / stride[a] + 1;
    }
  }
  return w;
}

inline int64_t product(const Dims& d) {
  int64_t p = 1;
  for (int64_t v : d) p *= v;
  return p;
}

// Calls fn(idx) for every index of `dims` in row-major order.
inline void for_each_index(const Dims& dims, const std::function<void(const Dims&)>& fn) {
  for (int64_t d : dims)
    if (d == 0) return;
  Dims idx(dims.size(), 0);
  while (true) {
    fn(idx);
    int a = static_cast<int>(dims.size()) - 1;
    while (a >= 0 && ++idx[a] == dims[a]) idx[a--] = 0;
    if (a < 0) return;
  }
}

// Row-major offset of (n, pos..., c) in [N, spatial..., C].
inline int64_t nhwc_at(const Dims& spatial, int64_t channels, int64_t n, const Dims& pos, int64_t c) {
  int64_t r = n;
  for (size_t a = 0; a < spatial.size(); ++a) r = r * spatial[a] + pos[a];
  return r * channels + c;
}

// Row-major offset of (tap..., i, o) in weights [k..., I, O].
inline int64_t weight_at(const Dims& kernel, int64_t I, int64_t O, const Dims& tap, int64_t i, int64_t o) {
  int64_t r = 0;
  for (size_t a = 0; a < kernel.size(); ++a) r = r * kernel[a] + tap[a];
  return (r * I + i) * O + o;
}

// The input position a tap of an output position reads, or false when it lies in the padding.
inline bool tap_input(const RefWindow& w, const Dims& out, const Dims& tap, Dims& pos) {
  pos.resize(out.size());
  for (size_t a = 0; a < out.size(); ++a) {
    pos[a] = out[a] * w.stride[a] - w.pad_before[a] + tap[a] * w.dilation[a];
    if (pos[a] < 0 || pos[a] >= w.in[a]) return false;
  }
  return true;
}

// y[N, out..., O] of x[N, in..., C] and w[k..., C/groups, O] (+ b[O] when not empty).
inline std::vector<double> ref_conv(const std::vector<double>& x, int64_t N, int64_t C, const std::vector<double>& w,
                                    int64_t O, const std::vector<double>& b, const RefWindow& win, int64_t groups) {
  const int64_t Cg = C / groups, Og = O / groups;
  std::vector<double> y(N * O * product(win.out));
  Dims pos;
  for (int64_t n = 0; n < N; ++n)
    for_each_index(win.out, [&](const Dims& out) {
      for (int64_t o = 0; o < O; ++o) {
        double acc = b.empty() ? 0 : b[o];
        for_each_index(win.kernel, [&](const Dims& tap) {
          if (!tap_input(win, out, tap, pos)) return;
          for (int64_t c = 0; c < Cg; ++c)
            acc += x[nhwc_at(win.in, C, n, pos, (o / Og) * Cg + c)] * w[weight_at(win.kernel, Cg, O, tap, c, o)];
        });
        y[nhwc_at(win.out, O, n, out, o)] = acc;
      }
    });
  return y;
}

// The transposed convolution: x[N, in..., C] scattered through w[k..., O/groups, C] into
// y[N, out..., O], where `win` maps y's positions (its `in`) to x's (its `out`).
inline std::vector<double> ref_conv_transpose(const std::vector<double>& x, int64_t N, int64_t C,
                                              const std::vector<double>& w, int64_t O, const std::vector<double>& b,
                                              const RefWindow& win, int64_t groups) {
  const int64_t Cg = C / groups, Og = O / groups;
  std::vector<double> y(N * O * product(win.in), 0.0);
  Dims pos;
  for (int64_t n = 0; n < N; ++n)
    for_each_index(win.out, [&](const Dims& xpos) {
      for_each_index(win.kernel, [&](const Dims& tap) {
        if (!tap_input(win, xpos, tap, pos)) return;
        for (int64_t c = 0; c < C; ++c)
          for (int64_t o = 0; o < Og; ++o)
            y[nhwc_at(win.in, O, n, pos, (c / Cg) * Og + o)] +=
                x[nhwc_at(win.out, C, n, xpos, c)] * w[weight_at(win.kernel, Og, C, tap, o, c)];
      });
    });
  if (!b.empty())
    for (size_t i = 0; i < y.size(); ++i) y[i] += b[i % O];
  return y;
}

// Max or average (over the unpadded elements) pooling of x[N, in..., C].
inline std::vector<double> ref_pool(const std::vector<double>& x, int64_t N, int64_t C, const RefWindow& win,
                                    bool max) {
  std::vector<double> y(N * C * product(win.out));
  Dims pos;
  for (int64_t n = 0; n < N; ++n)
    for_each_index(win.out, [&](const Dims& out) {
      for (int64_t c = 0; c < C; ++c) {
        double acc = max ? -std::numeric_limits<double>::infinity() : 0;
        int64_t count = 0;
        for_each_index(win.kernel, [&](const Dims& tap) {
          if (!tap_input(win, out, tap, pos)) return;
          const double v = x[nhwc_at(win.in, C, n, pos, c)];
          acc = max ? std::max(acc, v) : acc + v;
          ++count;
        });
        y[nhwc_at(win.out, C, n, out, c)] = max ? acc : acc / count;
      }
    });
  return y;
}

inline void expect_close(const Tensor& got, const std::vector<double>& want, double tol) {
  std::vector<double> g = got.to_vector<double>();
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < g.size(); ++i)
    ASSERT_NEAR(g[i], want[i], tol * std::max(1.0, std::abs(want[i]))) << "element " << i;
}

}  // namespace strata::testing

namespace strata::testing {

// The gradients of sum(fn(inputs) * r) for fixed random r, computed once in float32 (oneDNN)
// and once in float64 (the plain loops) from the same values: they must agree, which checks
// the oneDNN backward passes against the loops the conformance test checks numerically.
inline void expect_f32_backward_matches_f64(const std::function<Tensor(const std::vector<Tensor>&)>& fn,
                                            const std::vector<Tensor>& inputs64, double tol = 1e-4) {
  std::vector<std::vector<double>> grads[2];
  Tensor r;
  for (int pass = 0; pass < 2; ++pass) {
    const DType dt = pass == 0 ? kFloat32 : kFloat64;
    std::vector<Tensor> in;
    for (const Tensor& t : inputs64) in.push_back(cast(t, dt).detach().requires_grad_());
    Tensor y = fn(in);
    ASSERT_EQ(y.dtype(), dt);
    if (!r.defined()) {
      Generator gen(5);
      r = uniform(y.shape(), -1, 1, kFloat64, &gen);
    }
    Tensor loss = sum(y * cast(r, dt));
    for (const Tensor& g : autograd::grad({loss}, in)) grads[pass].push_back(g.to_vector<double>());
  }
  for (size_t i = 0; i < inputs64.size(); ++i) {
    ASSERT_EQ(grads[0][i].size(), grads[1][i].size());
    for (size_t j = 0; j < grads[0][i].size(); ++j)
      ASSERT_NEAR(grads[0][i][j], grads[1][i][j], tol * std::max(1.0, std::abs(grads[1][i][j])))
          << "input " << i << " element " << j;
  }
}

}  // namespace strata::testing
