// The point-cloud searches on the host (strata/dispatch/pointcloud.hpp): each thread lays a cloud
// out axis by axis once and runs over its points in contiguous arrays the compiler vectorises,
// one cloud (sampling) or query (neighbours, ball query) per thread, as PointNet++'s CUDA kernels
// do per thread. Inputs are contiguous and checked by the op. Neighbour and ball searches on large
// 3-D clouds go through a uniform grid (point_grid.hpp) instead, with the same results.
#include "kernels/cpu/pointcloud_kernels.hpp"

#if defined(__AVX512F__) && defined(__AVX512BW__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "kernels/cpu/point_grid.hpp"
#include "strata/core/error.hpp"
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
#if defined(__AVX512F__) && defined(__AVX512BW__)
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

// The first k indices of candidates (values[i], indices[i]), i < found, in increasing order of
// value: sorted by insertion; indices arrive increasing, so ties keep the lower first.
template <class T, class I>
void sort_candidates(T* values, I* indices, int64_t found, int64_t k, int64_t* out) {
  for (int64_t a = 1; a < found; ++a) {
    const T v = values[a];
    const I vi = indices[a];
    int64_t at = a;
    for (; at > 0 && v < values[at - 1]; --at) values[at] = values[at - 1], indices[at] = indices[at - 1];
    values[at] = v, indices[at] = vi;
  }
  std::copy(indices, indices + k, out);
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
  sort_candidates(values, indices, distances_within(dist, n, bound, values, indices), k, out);
}

#if defined(__AVX512F__) && defined(__AVX512BW__)
// The k <= 32 nearest of a 3-D float32 cloud's n >= 64 points, the issue 44 case, as k_smallest
// selects them but in three passes over registers and the first level of cache:
//  1. the distances, 16 at a time, stored, with the minima of the 32 interleaved columns kept in
//     two registers as they go (so the bound costs no second read of the distances);
//  2. the bound, the k-th smallest of those minima: min{m_c : #{j : m_j <= m_c} >= k};
//  3. one compare per block of 16 against it, then only the blocks holding any (about 18 of 64
//     for 1,024 uniform points) compressed into (distance, index) candidates in index order;
//  4. each candidate's rank, the candidates nearer plus those as near at a lower index, counted
//     in two registers (no branch to mispredict), is its place in the output.
// Same indices and ties as k_smallest (docs/benchmarks.md has the stage by stage times).
struct NearestScratch {
  std::vector<float> dist, values, best;
  std::vector<int32_t> indices;
};

// The squared distances of 16 points to q: the rounding of squared_distance3 as GCC compiles it
// (dy * dy, then dx * dx and dz * dz fused in), bit for bit, so that this path, the grid's and
// the generic one agree on every tie.
inline __m512 squared_distances16(const float* x, const float* y, const float* z, __m512 qx, __m512 qy, __m512 qz,
                                  __mmask16 lanes) {
  const __m512 dx = _mm512_sub_ps(_mm512_maskz_loadu_ps(lanes, x), qx);
  const __m512 dy = _mm512_sub_ps(_mm512_maskz_loadu_ps(lanes, y), qy);
  const __m512 dz = _mm512_sub_ps(_mm512_maskz_loadu_ps(lanes, z), qz);
  return _mm512_fmadd_ps(dz, dz, _mm512_fmadd_ps(dx, dx, _mm512_mul_ps(dy, dy)));
}

// The first `count` (0..16) of 16 lanes.
inline __mmask16 first_lanes(int64_t count) {
  return count >= 16 ? __mmask16(0xffff) : count <= 0 ? __mmask16(0) : __mmask16((1u << count) - 1);
}

void nearest_in_cloud3(const AxisMajor<float>& cloud, const float* q, int64_t k, int64_t* out, NearestScratch& s) {
  const int64_t n = cloud.n;
  const float *x = cloud.values.data(), *y = x + n, *z = y + n;
  s.dist.resize(static_cast<size_t>(n));
  s.values.resize(static_cast<size_t>(n + 16));  // room for a whole register's store at the last
  s.indices.resize(static_cast<size_t>(n + 16));
  float* dist = s.dist.data();
  const __m512 qx = _mm512_set1_ps(q[0]), qy = _mm512_set1_ps(q[1]), qz = _mm512_set1_ps(q[2]);
  const __m512 inf = _mm512_set1_ps(std::numeric_limits<float>::infinity());
  __m512 m0 = inf, m1 = inf;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 d0 = squared_distances16(x + i, y + i, z + i, qx, qy, qz, 0xffff);
    const __m512 d1 = squared_distances16(x + i + 16, y + i + 16, z + i + 16, qx, qy, qz, 0xffff);
    _mm512_storeu_ps(dist + i, d0);
    _mm512_storeu_ps(dist + i + 16, d1);
    // d < m ? d : m, so a NaN distance is never a minimum (maskz: GCC 12 warns on the plain form)
    m0 = _mm512_maskz_min_ps(0xffff, d0, m0);
    m1 = _mm512_maskz_min_ps(0xffff, d1, m1);
  }
  for (; i < n; i += 16) {  // a last partial row: in no column's minimum
    const __mmask16 lanes = first_lanes(n - i);
    _mm512_mask_storeu_ps(dist + i, lanes, squared_distances16(x + i, y + i, z + i, qx, qy, qz, lanes));
  }
  alignas(64) float minima[32];
  _mm512_store_ps(minima, m0);
  _mm512_store_ps(minima + 16, m1);
  __m512i at_most0 = _mm512_setzero_si512(), at_most1 = _mm512_setzero_si512();  // #{j : m_j <= m_c}
  const __m512i one = _mm512_set1_epi32(1);
  for (int j = 0; j < 32; ++j) {
    const __m512 m = _mm512_set1_ps(minima[j]);
    at_most0 = _mm512_mask_add_epi32(at_most0, _mm512_cmp_ps_mask(m, m0, _CMP_LE_OQ), at_most0, one);
    at_most1 = _mm512_mask_add_epi32(at_most1, _mm512_cmp_ps_mask(m, m1, _CMP_LE_OQ), at_most1, one);
  }
  const __m512i kth = _mm512_set1_epi32(static_cast<int32_t>(k));
  const __m512 kth0 = _mm512_mask_blend_ps(_mm512_cmpge_epi32_mask(at_most0, kth), inf, m0);
  const __m512 kth1 = _mm512_mask_blend_ps(_mm512_cmpge_epi32_mask(at_most1, kth), inf, m1);
  alignas(64) float lanes[16];  // stored and reduced here: GCC 12's _mm512_reduce_min_ps warns
  _mm512_store_ps(lanes, _mm512_maskz_min_ps(0xffff, kth0, kth1));
  const float bound = *std::min_element(lanes, lanes + 16);
  // A bound that is not finite (float32 distances past its range) bounds nothing.
  if (!(bound < std::numeric_limits<float>::infinity())) return k_smallest_by_insertion(dist, n, k, out, s.best);
  float* values = s.values.data();
  int32_t* indices = s.indices.data();
  const __m512 limit = _mm512_set1_ps(bound);
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  int64_t found = 0;
  for (int64_t base = 0; base < n; base += 1024) {  // 64 blocks of 16 at a time
    alignas(64) uint16_t within[64] = {};
    const int64_t blocks = std::min<int64_t>(64, (n - base + 15) / 16);
    for (int64_t b = 0; b < blocks; ++b) {
      const __mmask16 lanes = first_lanes(n - base - 16 * b);
      within[b] = _mm512_mask_cmp_ps_mask(lanes, _mm512_maskz_loadu_ps(lanes, dist + base + 16 * b), limit, _CMP_LE_OQ);
    }
    const __m512i w0 = _mm512_load_si512(within), w1 = _mm512_load_si512(within + 32);
    for (uint64_t any = _mm512_test_epi16_mask(w0, w0) | uint64_t(_mm512_test_epi16_mask(w1, w1)) << 32; any;
         any &= any - 1) {
      const int64_t at = base + 16 * __builtin_ctzll(any);
      const __mmask16 w = within[__builtin_ctzll(any)];
      _mm512_storeu_ps(values + found, _mm512_maskz_compress_ps(w, _mm512_maskz_loadu_ps(w, dist + at)));
      const __m512i index = _mm512_add_epi32(iota, _mm512_set1_epi32(static_cast<int32_t>(at)));
      _mm512_storeu_si512(indices + found, _mm512_maskz_compress_epi32(w, index));
      found += __builtin_popcount(w);
    }
  }
  if (found > 32) return sort_candidates(values, indices, found, k, out);  // clustered clouds
  // found >= k: the k minima at or below the bound are among the candidates.
  const __m512 v0 = _mm512_mask_loadu_ps(inf, first_lanes(found), values);            // past those found: +inf,
  const __m512 v1 = _mm512_mask_loadu_ps(inf, first_lanes(found - 16), values + 16);  // never below
  int32_t by_rank[32];
  for (int64_t j = 0; j < found; ++j) {
    const __m512 v = _mm512_set1_ps(values[j]);
    const uint32_t nearer =
        uint32_t(_mm512_cmp_ps_mask(v0, v, _CMP_LT_OQ)) | uint32_t(_mm512_cmp_ps_mask(v1, v, _CMP_LT_OQ)) << 16;
    const uint32_t as_near =
        uint32_t(_mm512_cmp_ps_mask(v0, v, _CMP_EQ_OQ)) | uint32_t(_mm512_cmp_ps_mask(v1, v, _CMP_EQ_OQ)) << 16;
    by_rank[__builtin_popcount(nearer | (as_near & ((1u << j) - 1)))] = indices[j];
  }
  std::copy(by_rank, by_rank + k, out);
}
#endif

// Calls each(bq, cloud, query) for every query bq of queries [B, Q, D], with `cloud` its cloud of
// points [B, N, D] laid out axis by axis: the queries spread over the threads, each thread laying
// a cloud out once for its run of that cloud's queries.
template <class T, class Each>
void for_each_query_in_cloud(const Tensor& queries, const Tensor& points, Each&& each) {
  const int64_t B = points.size(0), N = points.size(1), D = points.size(2), Q = queries.size(1);
  const T *p = points.data<T>(), *q = queries.data<T>();
#pragma omp parallel num_threads(threads())
  {
    AxisMajor<T> cloud_b;
    int64_t loaded = -1;
#pragma omp for schedule(static)
    for (int64_t bq = 0; bq < B * Q; ++bq) {
      if (bq / Q != loaded) cloud_b.load(p + bq / Q * N * D, N, D), loaded = bq / Q;
      each(bq, static_cast<const AxisMajor<T>&>(cloud_b), q + bq * D);
    }
  }
}

// Calls each(bq, dist) for every query bq, with dist its squared distances to the N points of its
// cloud.
template <class Each>
void for_each_query(const Tensor& queries, const Tensor& points, Each&& each) {
  with_floats(points, [&](const auto* p) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
    for_each_query_in_cloud<T>(queries, points, [&](int64_t bq, const AxisMajor<T>& cloud, const T* q) {
      thread_local std::vector<T> dist;
      dist.resize(static_cast<size_t>(cloud.n));
      cloud.distances_to(q, dist.data());
      each(bq, static_cast<const T*>(dist.data()));
    });
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

// scatter_max_rows' scan: each cell's row of the maximum per column, in row order (strictly
// greater replaces, so the first row keeps ties and a NaN only stays where it came first).
template <class T>
void scatter_max_scan(const T* src, const int64_t* index, int64_t n, int64_t c, int64_t* best) {
  for (int64_t i = 0; i < n; ++i) {
    const T* row = src + i * c;
    int64_t* cell = best + index[i] * c;
    for (int64_t j = 0; j < c; ++j)
      if (cell[j] < 0 || row[j] > src[cell[j] * c + j]) cell[j] = i;
  }
}

struct VoxelCellHash {
  size_t operator()(const std::array<int64_t, 3>& cell) const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int64_t v : cell) h = (h ^ static_cast<uint64_t>(v)) * 0xbf58476d1ce4e5b9ull, h ^= h >> 31;
    return static_cast<size_t>(h);
  }
};

// A fresh int64 tensor [shape] on `device` holding `values`.
Tensor int64_on(const std::vector<int64_t>& values, const Shape& shape, Device device) {
  Tensor t = Tensor::empty(shape, kInt64, device);
  if (!values.empty()) std::memcpy(t.data<int64_t>(), values.data(), values.size() * sizeof(int64_t));
  return t;
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
#if defined(__AVX512F__) && defined(__AVX512BW__)
  if (points.dtype() == kFloat32 && points.size(2) == 3 && k <= 32 && N >= 64) {
    for_each_query_in_cloud<float>(queries, points, [&](int64_t bq, const AxisMajor<float>& cloud, const float* q) {
      thread_local NearestScratch scratch;
      nearest_in_cloud3(cloud, q, k, idx + bq * k, scratch);
    });
    return out;
  }
#endif
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

Tensor scatter_max_rows(const Tensor& src, const Tensor& index, int64_t count) {
  const int64_t n = src.size(0), c = src.size(1);
  const int64_t* ids = index.data<int64_t>();
  for (int64_t i = 0; i < n; ++i)
    STRATA_CHECK(ids[i] >= 0 && ids[i] < count, "scatter_max: index[", i, "] = ", ids[i], " is outside [0, ", count,
                 ")");
  Tensor out = Tensor::empty({count, c}, kInt64, src.device());
  int64_t* best = out.data<int64_t>();
  std::fill(best, best + count * c, int64_t{-1});
  with_floats(src, [&](const auto* s) { scatter_max_scan(s, ids, n, c, best); });
  return out;
}

dispatch::VoxelCells voxel_cells(const Tensor& xyz, double voxel_size) {
  const double* v = xyz.data<double>();
  const int64_t n = xyz.size(0);
  constexpr double kLimit = 1099511627776.0;  // 2^40 cells per axis
  std::unordered_map<std::array<int64_t, 3>, int64_t, VoxelCellHash> ids;
  std::vector<int64_t> point_voxel(static_cast<size_t>(n)), coordinates, counts;
  for (int64_t i = 0; i < n; ++i) {
    std::array<int64_t, 3> cell{};
    for (int a = 0; a < 3; ++a) {
      const double q = std::floor(v[i * 3 + a] / voxel_size);
      STRATA_CHECK(std::isfinite(q) && std::abs(q) < kLimit, "voxelize: point ", i, " coordinate ", a, " = ",
                   v[i * 3 + a], " is ", q, " voxels out; at most 2^40 per axis");
      cell[a] = static_cast<int64_t>(q);
    }
    const auto [at, added] = ids.try_emplace(cell, static_cast<int64_t>(counts.size()));
    if (added) {
      coordinates.insert(coordinates.end(), cell.begin(), cell.end());
      counts.push_back(0);
    }
    point_voxel[i] = at->second;
    ++counts[at->second];
  }
  const int64_t voxels = static_cast<int64_t>(counts.size());
  return {int64_on(point_voxel, {n}, xyz.device()), int64_on(coordinates, {voxels, 3}, xyz.device()),
          int64_on(counts, {voxels}, xyz.device())};
}

}  // namespace strata::kernels::cpu
