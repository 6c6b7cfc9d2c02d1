// The loop engine behind every element-wise kernel: walks K operands of one shape with their
// own strides (0 where broadcast), merging dimensions that are contiguous together so that the
// common case is a single flat run, and splitting large work across the OpenMP threads that
// oneDNN uses too (one pool, no oversubscription).
#pragma once
#include <omp.h>

#include <array>
#include <cstdint>

#include "kernels/cpu/thread_budget.hpp"
#include "strata/core/shape.hpp"

namespace strata::kernels::cpu {

// Below this many elements a loop runs on the calling thread: waking threads costs more.
inline constexpr int64_t kParallelGrain = 32768;

// Calls body(begin, end) over [0, n) split across threads when n is large enough.
template <class F>
void parallel_for(int64_t n, int64_t grain, F&& body) {
  if (n <= grain || omp_in_parallel() || apply_thread_budget() == 1) {
    if (n > 0) body(int64_t{0}, n);
    return;
  }
#pragma omp parallel
  {
    int nt = omp_get_num_threads(), t = omp_get_thread_num();
    int64_t chunk = (n + nt - 1) / nt;
    int64_t b = t * chunk, e = b + chunk < n ? b + chunk : n;
    if (b < e) body(b, e);
  }
}

// K operands over `shape`: base pointers and strides in bytes. `inner(ptrs, strides, n)` gets
// runs along the innermost (merged) dimension.
template <int K>
struct StridedLoop {
  Shape shape;
  std::array<Shape, K> strides;  // bytes
  std::array<char*, K> base;

  // Merges adjacent dimensions that every operand walks contiguously, and drops size-1 ones.
  void coalesce() {
    Shape s;
    std::array<Shape, K> st;
    for (int d = 0; d < shape.size(); ++d) {
      if (shape[d] == 1) continue;
      if (s.size() > 0) {
        bool mergeable = true;
        for (int k = 0; k < K; ++k)
          if (st[k].back() != strides[k][d] * shape[d]) mergeable = false;
        if (mergeable) {
          s[s.size() - 1] *= shape[d];
          for (int k = 0; k < K; ++k) st[k][st[k].size() - 1] = strides[k][d];
          continue;
        }
      }
      s.push_back(shape[d]);
      for (int k = 0; k < K; ++k) st[k].push_back(strides[k][d]);
    }
    if (s.size() == 0) {  // a single element
      s.push_back(1);
      for (int k = 0; k < K; ++k) st[k].push_back(0);
    }
    shape = s;
    strides = st;
  }

  template <class F>
  void run(F&& inner) {
    if (shape.numel() == 0) return;
    coalesce();
    const int nd = shape.size();
    const int64_t n_inner = shape[nd - 1];
    int64_t n_outer = 1;
    for (int d = 0; d < nd - 1; ++d) n_outer *= shape[d];
    std::array<int64_t, K> inner_stride;
    for (int k = 0; k < K; ++k) inner_stride[k] = strides[k][nd - 1];

    auto rows = [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        std::array<char*, K> p = base;
        int64_t rem = r;
        for (int d = nd - 2; d >= 0; --d) {
          int64_t i = rem % shape[d];
          rem /= shape[d];
          for (int k = 0; k < K; ++k) p[k] += i * strides[k][d];
        }
        inner(p, inner_stride, n_inner);
      }
    };
    if (n_outer == 1) {
      // One long run: split it, so flat contiguous work uses every thread.
      parallel_for(n_inner, kParallelGrain, [&](int64_t b, int64_t e) {
        std::array<char*, K> p = base;
        for (int k = 0; k < K; ++k) p[k] += b * inner_stride[k];
        inner(p, inner_stride, e - b);
      });
    } else {
      int64_t grain = n_inner >= kParallelGrain ? 1 : kParallelGrain / n_inner;
      parallel_for(n_outer, grain, rows);
    }
  }
};

}  // namespace strata::kernels::cpu
