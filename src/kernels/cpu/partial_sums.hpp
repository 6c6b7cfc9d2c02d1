// Deterministic parallel sums for the fused nn kernels (losses, normalisation): work is cut
// into blocks that depend only on the problem size, each block sums in double on one thread,
// and the blocks are combined in a fixed order, so a result does not change with the number of
// threads.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/cpu/elementwise.hpp"
#include "kernels/cpu/loops.hpp"

namespace strata::kernels::cpu {

// [0, n) cut into at most 64 equal blocks, about kParallelGrain units of work each.
struct BlockSplit {
  int64_t n, count, size;
  BlockSplit(int64_t items, int64_t cost_per_item) : n(items) {
    int64_t want = items * std::max<int64_t>(cost_per_item, 1) / kParallelGrain;
    want = std::clamp<int64_t>(want, 1, 64);
    want = std::max<int64_t>(std::min(want, items), 1);
    size = std::max<int64_t>((items + want - 1) / want, 1);
    count = std::max<int64_t>((items + size - 1) / size, 1);
  }
  int64_t begin(int64_t i) const { return std::min(n, i * size); }
  int64_t end(int64_t i) const { return std::min(n, (i + 1) * size); }
};

// Calls f(block, begin, end) for every block, blocks spread over the threads.
template <class F>
void for_each_block(const BlockSplit& s, F&& f) {
  parallel_for(s.count, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) f(i, s.begin(i), s.end(i));
  });
}

// The sum over [0, n) of f(begin, end) -> double, each call covering one block.
template <class F>
double blocked_sum(int64_t n, int64_t cost_per_item, F&& f) {
  BlockSplit s(n, cost_per_item);
  std::vector<double> part(s.count, 0.0);
  for_each_block(s, [&](int64_t i, int64_t b, int64_t e) { part[i] = f(b, e); });
  double total = 0;
  for (double v : part) total += v;
  return total;
}

// The sum of term(i) over [0, n): vector lanes of T over runs of 512 terms (no conversions in
// the hot loop), the runs added in double.
template <class T, class F>
double chunked_sum(int64_t n, F&& term) {
  double total = 0;
  for (int64_t b = 0; b < n; b += 512) {
    const int64_t len = std::min<int64_t>(n - b, 512);
    T s = 0;
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < len; ++i) s += term(b + i);
    total += static_cast<double>(s);
  }
  return total;
}

// Column sums of a [rows, width] problem: f(begin, end, acc) adds the contributions of rows
// [begin, end) into acc[0, width) (zeroed, double); the result is their total per column.
template <class F>
std::vector<double> column_sums(int64_t rows, int64_t width, F&& f) {
  BlockSplit s(rows, width);
  std::vector<double> part(s.count * width, 0.0);
  for_each_block(s, [&](int64_t i, int64_t b, int64_t e) { f(b, e, part.data() + i * width); });
  if (s.count == 1) return part;
  std::vector<double> out(width, 0.0);
  parallel_for(width, std::max<int64_t>(kParallelGrain / s.count, 1), [&](int64_t b, int64_t e) {
    for (int64_t i = 0; i < s.count; ++i) {
      const double* p = part.data() + i * width;
      for (int64_t j = b; j < e; ++j) out[j] += p[j];
    }
  });
  return out;
}

}  // namespace strata::kernels::cpu
