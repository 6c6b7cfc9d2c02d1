// The point-cloud searches (dispatch/pointcloud.hpp) as PointNet++'s kernels do them, with no
// distance matrix in memory and the CPU's tie rules: one thread per query for knn (its k nearest
// kept sorted by insertion) and ball query (its points in index order); farthest point sampling
// with `parts` threads per cloud. Distances add the squared coordinate differences in axis order
// in the clouds' own precision, as the CPU does (points on a grid tie exactly on both).
#include <cmath>
#include <limits>
#include <string>

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

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
