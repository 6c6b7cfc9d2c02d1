// The point-cloud searches (dispatch/pointcloud.hpp) as PointNet++'s kernels do them, with no
// distance matrix in memory and the CPU's tie rules: one thread per query for knn (its k nearest
// kept sorted by insertion) and ball query (its points in index order); farthest point sampling
// with `parts` threads per cloud. Distances add the squared coordinate differences in axis order
// in the clouds' own precision, as the CPU does (points on a grid tie exactly on both).
// scatter_max_rows and voxel_cells scatter points into cells with atomics whose result does not
// depend on the threads' order (minima and maxima of integers, one claim per hash slot), so they
// give the CPU's scan-order answers: see each.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/cuda/pointcloud.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {
namespace detail {

template <class T>
STRATA_HD inline T squared_distance(const T* a, const T* b, int64_t D) {
  T s = T(0);
  for (int64_t c = 0; c < D; ++c) s += (a[c] - b[c]) * (a[c] - b[c]);
  return s;
}

// Farthest point sampling. Thread (b, p) owns cloud b's points n = p, p + parts, ... and their
// distances to the chosen set (`nearest`, which no other thread touches). Each step is two
// launches: every thread folds in its points' distances to the last chosen point and writes its
// farthest (the lowest index among equals) to `far_d`/`far_n`; then one thread per cloud takes
// the farthest of its parts (the lowest index among equals) as the next chosen. That second
// launch stands in for a block-wide reduction, which portable.hpp does not offer (no shared
// memory), so a step costs two launches rather than one.
template <class T>
void farthest_point_sample_typed(const Tensor& points, int64_t m, Tensor& out) {
  const int64_t B = points.size(0), N = points.size(1), D = points.size(2);
  // About sqrt(N) parts of about sqrt(N) points: the two launches of a step do equal work.
  const int64_t parts = std::min<int64_t>(N, static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(N)))));
  Tensor nearest = Tensor::empty(Shape{B, N}, points.dtype(), points.device());
  Tensor far_d = Tensor::empty(Shape{B, parts}, points.dtype(), points.device());
  Tensor far_n = Tensor::empty(Shape{B, parts}, kInt64, points.device());
  const T* p = points.data<T>();
  T* near = nearest.data<T>();
  T* fd = far_d.data<T>();
  int64_t* fn = far_n.data<int64_t>();
  int64_t* idx = out.data<int64_t>();
  for_each_index(B, "farthest_point_sample", [=] STRATA_HD(int64_t b) { idx[b * m] = 0; });
  for (int64_t i = 1; i < m; ++i) {
    for_each_index(B * parts, "farthest_point_sample", [=] STRATA_HD(int64_t t) {
      const int64_t b = t / parts, part = t - b * parts;
      const T* cloud = p + b * N * D;
      const T* last = cloud + idx[b * m + i - 1] * D;
      T best = T(-1);
      int64_t best_n = part;
      for (int64_t n = part; n < N; n += parts) {
        const T d = squared_distance(cloud + n * D, last, D);
        T& held = near[b * N + n];
        const T now = i == 1 || d < held ? d : held;
        held = now;
        if (now > best) best = now, best_n = n;
      }
      fd[t] = best, fn[t] = best_n;
    });
    for_each_index(B, "farthest_point_sample", [=] STRATA_HD(int64_t b) {
      T best = fd[b * parts];
      int64_t best_n = fn[b * parts];
      for (int64_t q = 1; q < parts; ++q) {
        const T d = fd[b * parts + q];
        if (d > best || (d == best && fn[b * parts + q] < best_n)) best = d, best_n = fn[b * parts + q];
      }
      idx[b * m + i] = best_n;
    });
  }
}

// knn: thread bq scans its cloud in index order keeping the k nearest sorted (strictly nearer
// ones move in, so among equals the lower index stays ahead).
template <class T>
void knn_typed(const Tensor& queries, const Tensor& points, int64_t k, Tensor& out) {
  const int64_t N = points.size(1), D = points.size(2), Q = queries.size(1);
  const T* q = queries.data<T>();
  const T* p = points.data<T>();
  int64_t* idx = out.data<int64_t>();
  for_each_index(out.numel() / k, "knn", [=] STRATA_HD(int64_t bq) {
    T best[kMaxKnnK];
    int64_t near[kMaxKnnK];
    for (int64_t j = 0; j < k; ++j) best[j] = std::numeric_limits<T>::infinity(), near[j] = 0;
    const T* cloud = p + bq / Q * N * D;
    for (int64_t n = 0; n < N; ++n) {
      const T d = squared_distance(cloud + n * D, q + bq * D, D);
      if (!(d < best[k - 1])) continue;
      int64_t at = k - 1;
      for (; at > 0 && d < best[at - 1]; --at) best[at] = best[at - 1], near[at] = near[at - 1];
      best[at] = d, near[at] = n;
    }
    for (int64_t j = 0; j < k; ++j) idx[bq * k + j] = near[j];
  });
}

// Ball query: thread bq takes its cloud's points within the radius in index order, filling the
// slots past the last found with the first found (all 0 when none is).
template <class T>
void ball_query_typed(const Tensor& queries, const Tensor& points, T r2, int64_t samples, Tensor& out) {
  const int64_t N = points.size(1), D = points.size(2), Q = queries.size(1);
  const T* q = queries.data<T>();
  const T* p = points.data<T>();
  int64_t* idx = out.data<int64_t>();
  for_each_index(out.numel() / samples, "ball_query", [=] STRATA_HD(int64_t bq) {
    const T* cloud = p + bq / Q * N * D;
    int64_t* slots = idx + bq * samples;
    int64_t found = 0;
    for (int64_t n = 0; n < N && found < samples; ++n) {
      if (!(squared_distance(cloud + n * D, q + bq * D, D) < r2)) continue;
      if (found == 0)
        for (int64_t j = 1; j < samples; ++j) slots[j] = n;
      slots[found++] = n;
    }
    if (found == 0)
      for (int64_t j = 0; j < samples; ++j) slots[j] = 0;
  });
}

// Atomic minimum and maximum of integers, and a claim of an empty (-1) slot returning what it
// held, on the GPU; the same done plainly by the emulated device, whose "threads" run one by one.
STRATA_HD inline void atomic_min_i64(int64_t* p, int64_t v) {
#ifdef __CUDA_ARCH__
  atomicMin(reinterpret_cast<long long*>(p), static_cast<long long>(v));
#else
  if (v < *p) *p = v;
#endif
}
template <class U>
STRATA_HD inline void atomic_max_bits(U* p, U v) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(U) == 8) {
    atomicMax(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else {
    atomicMax(reinterpret_cast<unsigned int*>(p), static_cast<unsigned int>(v));
  }
#else
  if (v > *p) *p = v;
#endif
}
STRATA_HD inline int64_t claim_slot(int64_t* p, int64_t v) {
#ifdef __CUDA_ARCH__
  return static_cast<int64_t>(
      atomicCAS(reinterpret_cast<unsigned long long*>(p), ~0ull, static_cast<unsigned long long>(v)));
#else
  const int64_t held = *p;
  if (held == -1) *p = v;
  return held;
#endif
}

inline constexpr int64_t kNone = std::numeric_limits<int64_t>::max();

// A float's bits as an unsigned integer of the same order (-inf lowest, +inf highest; -0 just
// below +0), and back. NaNs are never encoded; 0 is below every encoding.
template <class T>
using OrderBits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
template <class T>
STRATA_HD inline OrderBits<T> order_bits(T v) {
  using U = OrderBits<T>;
  constexpr U sign = U(1) << (8 * sizeof(U) - 1);
  U u;
  memcpy(&u, &v, sizeof u);
  return (u & sign) ? ~u : (u | sign);
}
template <class T>
STRATA_HD inline T from_order_bits(OrderBits<T> k) {
  using U = OrderBits<T>;
  constexpr U sign = U(1) << (8 * sizeof(U) - 1);
  const U u = (k & sign) ? (k & ~sign) : ~k;
  T v;
  memcpy(&v, &u, sizeof v);
  return v;
}

// The first position of `index` out of [0, count) (n when none is), read back to the host.
inline int64_t first_bad_index(const int64_t* id, int64_t n, int64_t count, Device device) {
  Tensor bad = Tensor::empty(Shape{1}, kInt64, device);
  int64_t* b = bad.data<int64_t>();
  for_each_index(1, "scatter_max", [=] STRATA_HD(int64_t) { b[0] = n; });
  for_each_index(n, "scatter_max", [=] STRATA_HD(int64_t i) {
    if (id[i] < 0 || id[i] >= count) atomic_min_i64(b, i);
  });
  return bad.to_vector<int64_t>()[0];
}

// scatter_max_rows, the CPU's scan (first row, replaced by each strictly greater) as order-free
// steps: each cell's first row (an atomic minimum); each cell and column's largest value that is
// not NaN (an atomic maximum of order_bits); the first row holding a value equal to it (an atomic
// minimum; -0 and +0 are equal, as in the scan); then the first row itself where its value is NaN
// (the scan never replaces a NaN), that row otherwise, -1 where no row came.
template <class T>
void scatter_max_rows_typed(const Tensor& src, const Tensor& index, int64_t count, Tensor& out) {
  using U = OrderBits<T>;
  const int64_t n = src.size(0), c = src.size(1);
  const T* s = src.data<T>();
  const int64_t* id = index.data<int64_t>();
  Tensor first_t = Tensor::empty(Shape{count}, kInt64, src.device());
  Tensor top_t = Tensor::empty(Shape{count, c}, sizeof(U) == 4 ? kInt32 : kInt64, src.device());  // U's bits
  Tensor held_t = Tensor::empty(Shape{count, c}, kInt64, src.device());
  int64_t *first = first_t.data<int64_t>(), *held = held_t.data<int64_t>(), *o = out.data<int64_t>();
  U* top = static_cast<U*>(top_t.raw_data());
  for_each_index(count, "scatter_max", [=] STRATA_HD(int64_t cell) { first[cell] = kNone; });
  for_each_index(count * c, "scatter_max", [=] STRATA_HD(int64_t e) { top[e] = U(0), held[e] = kNone; });
  for_each_index(n, "scatter_max", [=] STRATA_HD(int64_t i) { atomic_min_i64(first + id[i], i); });
  for_each_index(n * c, "scatter_max", [=] STRATA_HD(int64_t e) {
    const int64_t i = e / c, j = e - i * c;
    const T v = s[e];
    if (v == v) atomic_max_bits(top + id[i] * c + j, order_bits(v));
  });
  for_each_index(n * c, "scatter_max", [=] STRATA_HD(int64_t e) {
    const int64_t i = e / c, j = e - i * c, at = id[i] * c + j;
    const T v = s[e];
    if (v == v && v == from_order_bits<T>(top[at])) atomic_min_i64(held + at, i);
  });
  for_each_index(count * c, "scatter_max", [=] STRATA_HD(int64_t e) {
    const int64_t cell = e / c, j = e - cell * c, f = first[cell];
    if (f == kNone)
      o[e] = -1;
    else
      o[e] = s[f * c + j] != s[f * c + j] ? f : held[e];
  });
}

// A cell's hash (three int64 mixed as splitmix64 does).
STRATA_HD inline uint64_t cell_hash(const int64_t* cell) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (int a = 0; a < 3; ++a) {
    h = (h ^ static_cast<uint64_t>(cell[a])) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
  }
  return h;
}

// Inclusive running sums of flags [n] (0 or 1) into sums [n], about sqrt(n) threads each summing
// a run of about sqrt(n), with one thread between; returns the total, read back to the host.
inline int64_t running_count(const int64_t* flags, int64_t n, int64_t* sums, Device device) {
  const int64_t parts = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(n)))));
  const int64_t run = (n + parts - 1) / parts;
  Tensor part_t = Tensor::empty(Shape{parts + 1}, kInt64, device);
  int64_t* part = part_t.data<int64_t>();
  for_each_index(parts, "voxelize", [=] STRATA_HD(int64_t p) {
    int64_t total = 0;
    for (int64_t i = p * run; i < n && i < (p + 1) * run; ++i) total += flags[i];
    part[p] = total;
  });
  for_each_index(1, "voxelize", [=] STRATA_HD(int64_t) {
    int64_t before = 0;
    for (int64_t p = 0; p < parts; ++p) {
      const int64_t mine = part[p];
      part[p] = before, before += mine;
    }
    part[parts] = before;
  });
  for_each_index(parts, "voxelize", [=] STRATA_HD(int64_t p) {
    int64_t total = part[p];
    for (int64_t i = p * run; i < n && i < (p + 1) * run; ++i) sums[i] = total += flags[i];
  });
  return part_t.narrow(0, parts, 1).to_vector<int64_t>()[0];
}

}  // namespace detail

Tensor farthest_point_sample(const Tensor& points, int64_t m) {
  Tensor out = Tensor::empty(Shape{points.size(0), m}, kInt64, points.device());
  dispatch_floating(points.dtype(), "farthest_point_sample", [&](auto tag) {
    detail::farthest_point_sample_typed<typename decltype(tag)::type>(points, m, out);
  });
  return out;
}

Tensor knn(const Tensor& queries, const Tensor& points, int64_t k) {
  if (k > kMaxKnnK)
    throw Error("knn: k = " + std::to_string(k) + " is more than the CUDA kernel's " + std::to_string(kMaxKnnK) +
                " (each query keeps its k nearest in its own thread); run it on the CPU (.to(kCPU))");
  Tensor out = Tensor::empty(Shape{queries.size(0), queries.size(1), k}, kInt64, points.device());
  dispatch_floating(points.dtype(), "knn", [&](auto tag) {
    detail::knn_typed<typename decltype(tag)::type>(queries, points, k, out);
  });
  return out;
}

Tensor ball_query(const Tensor& queries, const Tensor& points, double radius, int64_t samples) {
  Tensor out = Tensor::empty(Shape{queries.size(0), queries.size(1), samples}, kInt64, points.device());
  dispatch_floating(points.dtype(), "ball_query", [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::ball_query_typed<T>(queries, points, static_cast<T>(radius * radius), samples, out);
  });
  return out;
}

Tensor scatter_max_rows(const Tensor& src, const Tensor& index, int64_t count) {
  const int64_t n = src.size(0);
  if (detail::first_bad_index(index.data<int64_t>(), n, count, src.device()) < n) {
    // The CPU's words for the first bad index: its check, on a copy (errors only).
    dispatch::scatter_max_rows.get(DeviceType::CPU)(src.to(kCPU), index.to(kCPU), count);
    throw Error("scatter_max: an index is outside [0, " + std::to_string(count) + ")");
  }
  Tensor out = Tensor::empty(Shape{count, src.size(1)}, kInt64, src.device());
  dispatch_floating(src.dtype(), "scatter_max", [&](auto tag) {
    detail::scatter_max_rows_typed<typename decltype(tag)::type>(src, index, count, out);
  });
  return out;
}

// voxel_cells: each point's cell (a thread per point, floor(p / size) in float64 as on the CPU);
// the cells into an open-addressing hash table of about 2N slots, each slot claimed by the first
// thread to reach it, which joins its points of that cell, keeping their lowest index (an atomic
// minimum): the cell's first appearance. The points that are their cell's first, counted in index
// order, number the voxels as the CPU's scan does.
dispatch::VoxelCells voxel_cells(const Tensor& xyz, double voxel_size) {
  const int64_t n = xyz.size(0);
  const Device device = xyz.device();
  const double* v = xyz.data<double>();
  Tensor cells_t = Tensor::empty(Shape{n, 3}, kInt64, device), bad_t = Tensor::empty(Shape{1}, kInt64, device);
  int64_t *cells = cells_t.data<int64_t>(), *bad = bad_t.data<int64_t>();
  for_each_index(1, "voxelize", [=] STRATA_HD(int64_t) { bad[0] = n; });
  for_each_index(n, "voxelize", [=] STRATA_HD(int64_t i) {
    for (int a = 0; a < 3; ++a) {
      double q = floor(v[i * 3 + a] / voxel_size);
      if (!(fabs(q) < 1099511627776.0)) detail::atomic_min_i64(bad, i), q = 0;  // 2^40 cells; NaN too
      cells[i * 3 + a] = static_cast<int64_t>(q);
    }
  });
  if (bad_t.to_vector<int64_t>()[0] < n) {  // the CPU's words for the first such point, on a copy
    dispatch::voxel_cells.get(DeviceType::CPU)(xyz.to(kCPU), voxel_size);
    throw Error("voxelize: a point is 2^40 or more voxels out");
  }
  int64_t slots = 2;
  while (slots < 2 * n) slots *= 2;
  const uint64_t mask = static_cast<uint64_t>(slots - 1);
  Tensor table_t = Tensor::empty(Shape{slots}, kInt64, device), first_t = Tensor::empty(Shape{slots}, kInt64, device);
  Tensor slot_t = Tensor::empty(Shape{n}, kInt64, device), flag_t = Tensor::empty(Shape{n}, kInt64, device);
  Tensor rank_t = Tensor::empty(Shape{n}, kInt64, device);
  int64_t *table = table_t.data<int64_t>(), *first = first_t.data<int64_t>(), *slot_of = slot_t.data<int64_t>();
  int64_t *flag = flag_t.data<int64_t>(), *rank = rank_t.data<int64_t>();
  for_each_index(slots, "voxelize", [=] STRATA_HD(int64_t h) { table[h] = -1, first[h] = detail::kNone; });
  for_each_index(n, "voxelize", [=] STRATA_HD(int64_t i) {
    const int64_t* cell = cells + i * 3;
    for (uint64_t h = detail::cell_hash(cell) & mask;; h = (h + 1) & mask) {
      const int64_t held = detail::claim_slot(table + h, i);
      if (held == -1 ||
          (cells[held * 3] == cell[0] && cells[held * 3 + 1] == cell[1] && cells[held * 3 + 2] == cell[2])) {
        slot_of[i] = static_cast<int64_t>(h);
        detail::atomic_min_i64(first + h, i);
        return;
      }
    }
  });
  for_each_index(n, "voxelize", [=] STRATA_HD(int64_t i) { flag[i] = first[slot_of[i]] == i ? 1 : 0; });
  const int64_t voxels = n == 0 ? 0 : detail::running_count(flag, n, rank, device);
  Tensor point_voxel = Tensor::empty(Shape{n}, kInt64, device);
  Tensor coordinates = Tensor::empty(Shape{voxels, 3}, kInt64, device);
  Tensor counts = Tensor::empty(Shape{voxels}, kInt64, device);
  int64_t *pv = point_voxel.data<int64_t>(), *co = coordinates.data<int64_t>(), *ct = counts.data<int64_t>();
  for_each_index(voxels, "voxelize", [=] STRATA_HD(int64_t w) { ct[w] = 0; });
  for_each_index(n, "voxelize", [=] STRATA_HD(int64_t i) {
    const int64_t voxel = rank[first[slot_of[i]]] - 1;
    pv[i] = voxel;
    if (flag[i])
      for (int a = 0; a < 3; ++a) co[voxel * 3 + a] = cells[i * 3 + a];
    atomic_add(ct + voxel, int64_t{1});
  });
  return {point_voxel, coordinates, counts};
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
