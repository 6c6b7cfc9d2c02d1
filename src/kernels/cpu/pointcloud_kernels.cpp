// The point-cloud searches on the host (strata/dispatch/pointcloud.hpp): each thread lays a cloud
// out axis by axis once and runs over its points in contiguous arrays the compiler vectorises,
// one cloud (sampling) or query (neighbours, ball query) per thread, as PointNet++'s CUDA kernels
// do per thread. Inputs are contiguous and checked by the op. Neighbour and ball searches on large
// 3-D clouds go through a uniform grid (point_grid.hpp) instead, with the same results.
#include "kernels/cpu/pointcloud_kernels.hpp"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/cpu/point_grid.hpp"
#include "strata/core/factory.hpp"
#include "strata/core/intra_op_threads.hpp"

namespace strata::kernels::cpu {
namespace {

// One cloud's coordinates axis by axis (x of every point, then y, ...), so the distance loops
// run over contiguous arrays the compiler vectorises. Distances are computed in the clouds' own
// precision, as PointNet++'s kernels do.
template <class T>
struct AxisMajor {
  std::vector<T> values;  // D arrays of n
  int64_t n = 0, d = 0;
  void load(const T* points, int64_t count, int64_t dims) {
    n = count, d = dims;
    values.resize(static_cast<size_t>(n * d));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t c = 0; c < d; ++c) values[c * n + i] = points[i * d + c];
  }
  // out[i] = squared distance from point i to `q` (d coordinates), for every point.
  void distances_to(const T* q, T* out) const {
    if (d == 3) {  // the usual case in one pass
      const T *x = values.data(), *y = x + n, *z = y + n;
      const T qx = q[0], qy = q[1], qz = q[2];
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) out[i] = squared_distance3(x[i], y[i], z[i], qx, qy, qz);
      return;
    }
    std::fill(out, out + n, T(0));
    for (int64_t c = 0; c < d; ++c) {
      const T* axis = values.data() + c * n;
      const T qc = q[c];
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) out[i] += (axis[i] - qc) * (axis[i] - qc);
    }
  }
  void point(int64_t i, T* out) const {
    for (int64_t c = 0; c < d; ++c) out[c] = values[c * n + i];
  }
};

// Calls fn(pointer) with the float data of either dtype.
template <class F>
void with_floats(const Tensor& t, F&& fn) {
  if (t.dtype() == kFloat32) fn(t.data<float>());
  else fn(t.data<double>());
}

int threads() { return intra_op_thread_limit(); }

// The k smallest of dist[0, n) (ties to the lower index) into out, in increasing order: one pass
// keeping them sorted, where most distances fail the comparison with the k-th so far.
template <class T>
void k_smallest_by_insertion(const T* dist, int64_t n, int64_t k, int64_t* out, std::vector<T>& best) {
  best.assign(static_cast<size_t>(k), std::numeric_limits<T>::infinity());
  std::fill(out, out + k, int64_t{0});
  for (int64_t i = 0; i < n; ++i) {
    const T v = dist[i];
    if (!(v < best[k - 1])) continue;  // equal distances keep the lower index already held
    int64_t at = k - 1;
    for (; at > 0 && v < best[at - 1]; --at) best[at] = best[at - 1], out[at] = out[at - 1];
    best[at] = v, out[at] = i;
  }
}

template <class T>
struct KSmallestScratch {
  std::vector<T> values;
  std::vector<int64_t> indices;
  std::vector<T> best;  // the insertion pass's
};

// Writes (dist[i], i) for every i in [0, n) with dist[i] <= bound to values and indices (room for
// n each), returning how many. AVX-512 stores 16 lanes' matches at a time.
template <class T>
int64_t distances_within(const T* dist, int64_t n, T bound, T* values, int64_t* indices) {
  int64_t found = 0, i = 0;
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    const __m512 limit = _mm512_set1_ps(bound);
    for (; i + 16 <= n; i += 16) {
      const __m512 d = _mm512_loadu_ps(dist + i);
      const __mmask16 within = _mm512_cmp_ps_mask(d, limit, _CMP_LE_OQ);
      if (!within) continue;
      _mm512_mask_compressstoreu_ps(values + found, within, d);
      for (__mmask16 m = within; m; m &= m - 1) indices[found++] = i + __builtin_ctz(m);
    }
  }
#endif
  for (; i < n; ++i)
    if (dist[i] <= bound) values[found] = dist[i], indices[found++] = i;
  return found;
}

// The same k smallest, in two passes where n allows: a bound on the k-th smallest distance, the
// k-th smallest of the minima of `columns` interleaved columns (dist[c], dist[c + columns], ...;
// those k minima are k distances no larger than it, so the k nearest are all within it), then the
// few distances within the bound sorted (about 22 of 1,024 uniform points for k = 16). The
// insertion pass above moves its sorted k about k ln(n / k) times, mispredicting each time: this
// halves the time of issue 44's neighbours case (docs/benchmarks.md).
template <class T>
void k_smallest(const T* dist, int64_t n, int64_t k, int64_t* out, KSmallestScratch<T>& s) {
  constexpr int64_t kMaxColumns = 64;
  const int64_t columns = k <= 32 ? 32 : kMaxColumns;
  if (k > kMaxColumns || n < 2 * columns) return k_smallest_by_insertion(dist, n, k, out, s.best);
  T minima[kMaxColumns];
  std::fill(minima, minima + columns, std::numeric_limits<T>::infinity());
  for (int64_t row = 0; row + columns <= n; row += columns) {
#pragma omp simd
    for (int64_t c = 0; c < columns; ++c) minima[c] = dist[row + c] < minima[c] ? dist[row + c] : minima[c];
  }
  T bound = std::numeric_limits<T>::infinity();  // the minimum with k - 1 below it (ties by column)
  for (int32_t c = 0; c < columns; ++c) {
    int32_t below = 0;
#pragma omp simd reduction(+ : below)
    for (int32_t j = 0; j < columns; ++j) below += int32_t(minima[j] < minima[c]) + int32_t((minima[j] == minima[c]) & (j < c));
    if (below == k - 1) {
      bound = minima[c];
      break;
    }
  }
  // A bound that is not finite (float32 distances past its range) bounds nothing.
  if (!(bound < std::numeric_limits<T>::infinity())) return k_smallest_by_insertion(dist, n, k, out, s.best);
  s.values.resize(static_cast<size_t>(n));
  s.indices.resize(static_cast<size_t>(n));
  T* values = s.values.data();
  int64_t* indices = s.indices.data();
  const int64_t found = distances_within(dist, n, bound, values, indices);
  // Sorted by distance by insertion; indices arrive increasing, so ties keep the lower first.
  for (int64_t a = 1; a < found; ++a) {
    const T v = values[a];
    const int64_t vi = indices[a];
    int64_t at = a;
    for (; at > 0 && v < values[at - 1]; --at) values[at] = values[at - 1], indices[at] = indices[at - 1];
    values[at] = v, indices[at] = vi;
  }
  std::copy(indices, indices + k, out);
}

// Calls each(bq, dist) for every query bq of queries [B, Q, D], with dist its squared distances
// to the N points of its cloud in points [B, N, D]: the queries spread over the threads, each
// thread laying a cloud out axis by axis once for its run of that cloud's queries.
template <class Each>
void for_each_query(const Tensor& queries, const Tensor& points, Each&& each) {
  const int64_t B = points.size(0), N = points.size(1), D = points.size(2), Q = queries.size(1);
  with_floats(points, [&](const auto* p) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
    const T* q = queries.data<T>();
#pragma omp parallel num_threads(threads())
    {
      AxisMajor<T> cloud_b;
      int64_t loaded = -1;
      std::vector<T> dist(N);
#pragma omp for schedule(static)
      for (int64_t bq = 0; bq < B * Q; ++bq) {
        if (bq / Q != loaded) cloud_b.load(p + bq / Q * N * D, N, D), loaded = bq / Q;
        cloud_b.distances_to(q + bq * D, dist.data());
        each(bq, static_cast<const T*>(dist.data()));
      }
    }
  });
}

// Where the grid pays for building (bench/bench_pointcloud.cpp, docs/pointclouds.md): 3-D clouds
// of at least kGridPoints points searched by at least kGridQueries queries each. Below that, one
// vectorised pass over the cloud per query is as fast.
constexpr int64_t kGridPoints = 8192, kGridQueries = 64;

bool use_grid(const Tensor& queries, const Tensor& points) {
  return points.size(2) == 3 && points.size(1) >= kGridPoints && queries.size(1) >= kGridQueries;
}

// Builds a grid per cloud of points [B, N, 3] (cells of side at least min_side, about per_cell
// points to a cell), then calls each(grid, bq, query) for every query of queries [B, Q, 3], spread
// over the threads. Returns false, calling nothing, where a cloud's coordinates do not fit a grid.
template <class T, class Each>
bool for_each_query_on_grids(const Tensor& queries, const Tensor& points, double per_cell, double min_side, Each&& each) {
  const int64_t B = points.size(0), N = points.size(1), Q = queries.size(1);
  const T *p = points.data<T>(), *q = queries.data<T>();
  std::vector<PointGrid<T>> grids(static_cast<size_t>(B));
  std::vector<char> built(static_cast<size_t>(B));
#pragma omp parallel for num_threads(threads()) schedule(dynamic)
  for (int64_t b = 0; b < B; ++b) built[b] = grids[b].build(p + b * N * 3, N, per_cell, min_side);
  if (std::find(built.begin(), built.end(), 0) != built.end()) return false;
#pragma omp parallel for num_threads(threads()) schedule(dynamic, 64)
  for (int64_t bq = 0; bq < B * Q; ++bq) each(grids[bq / Q], bq, q + bq * 3);
  return true;
}

}  // namespace

Tensor farthest_point_sample(const Tensor& points, int64_t m) {
  const int64_t B = points.size(0), N = points.size(1), D = points.size(2);
  Tensor out = Tensor::empty({B, m}, kInt64, points.device());
  int64_t* idx = out.data<int64_t>();
  with_floats(points, [&](const auto* p) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
#pragma omp parallel num_threads(threads())
    {
      AxisMajor<T> cloud_b;
      std::vector<T> nearest, to_last, last_point(D);
#pragma omp for schedule(dynamic)
      for (int64_t b = 0; b < B; ++b) {
        cloud_b.load(p + b * N * D, N, D);
        nearest.assign(N, std::numeric_limits<T>::infinity());
        to_last.resize(N);
        int64_t last = 0;
        idx[b * m] = 0;
        for (int64_t i = 1; i < m; ++i) {
          cloud_b.point(last, last_point.data());
          cloud_b.distances_to(last_point.data(), to_last.data());
          T farthest_distance = -1;
#pragma omp simd reduction(max : farthest_distance)
          for (int64_t n = 0; n < N; ++n) {
            nearest[n] = std::min(nearest[n], to_last[n]);
            farthest_distance = std::max(farthest_distance, nearest[n]);
          }
          last = std::find(nearest.begin(), nearest.end(), farthest_distance) - nearest.begin();  // the lowest such
          idx[b * m + i] = last;
        }
      }
    }
  });
  return out;
}

Tensor knn(const Tensor& queries, const Tensor& points, int64_t k) {
  const int64_t B = points.size(0), N = points.size(1), Q = queries.size(1);
  Tensor out = Tensor::empty({B, Q, k}, kInt64, points.device());
  int64_t* idx = out.data<int64_t>();
  if (use_grid(queries, points)) {
    bool done = false;
    with_floats(points, [&](const auto* p) {
      using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
      // About k / 2 points to a cell: the query's ring of 27 cells mostly holds the k nearest.
      done = for_each_query_on_grids<T>(queries, points, std::max<double>(2, k / 2.0), 0,
                                        [&](const PointGrid<T>& grid, int64_t bq, const T* q) {
                                          thread_local std::vector<T> best;
                                          grid.knn(q, k, idx + bq * k, best);
                                        });
    });
    if (done) return out;
  }
  for_each_query(queries, points, [&](int64_t bq, const auto* dist) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(dist)>>;
    thread_local KSmallestScratch<T> scratch;
    k_smallest(dist, N, k, idx + bq * k, scratch);
  });
  return out;
}

Tensor ball_query(const Tensor& queries, const Tensor& points, double radius, int64_t samples) {
  const int64_t B = points.size(0), N = points.size(1), Q = queries.size(1);
  Tensor out = zeros({B, Q, samples}, {kInt64, points.device()});
  int64_t* idx = out.data<int64_t>();
  if (use_grid(queries, points)) {
    bool done = false;
    with_floats(points, [&](const auto* p) {
      using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
      // Cells of side radius (or wider where that would make more cells than points): a query
      // searches the 2 or 3 cells along each axis its ball reaches.
      done = for_each_query_on_grids<T>(queries, points, 1, radius, [&](const PointGrid<T>& grid, int64_t bq, const T* q) {
        thread_local std::vector<int64_t> heap;
        grid.ball_query(q, radius, static_cast<T>(radius * radius), samples, idx + bq * samples, heap);
      });
    });
    if (done) return out;
  }
  for_each_query(queries, points, [&](int64_t bq, const auto* dist) {
    const auto r2 = static_cast<std::remove_cv_t<std::remove_pointer_t<decltype(dist)>>>(radius * radius);
    int64_t* slots = idx + bq * samples;
    int64_t found = 0;
    for (int64_t n = 0; n < N && found < samples; ++n) {
      if (!(dist[n] < r2)) continue;
      if (found == 0) std::fill(slots, slots + samples, n);
      slots[found++] = n;
    }
  });
  return out;
}

}  // namespace strata::kernels::cpu
