// Point-cloud ops (strata/ops/pointcloud.hpp). The searches (sampling, neighbours, ball query)
// are loops over each cloud's points on the host, one cloud or query per thread, with no
// distance matrix in memory: PointNet++'s CUDA kernels do the same per thread. The
// differentiable ops are built from existing ops, so their gradients come with them.
#include "strata/ops/pointcloud.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "ops/op_common.hpp"
#include "strata/core/intra_op_threads.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata {
namespace {

// A [B, N, D] float cloud on the CPU, checked and made contiguous.
Tensor cloud(const Tensor& t, const char* op, const char* what) {
  ops::check_defined(t, op, what);
  STRATA_CHECK(t.dim() == 3, op, ": ", what, " must be [B, N, D], got ", t.shape().str());
  STRATA_CHECK(t.dtype() == kFloat32 || t.dtype() == kFloat64, op, ": ", what, " must be float32 or float64, got ",
               dtype_name(t.dtype()));
  // A static model learns a layer's shapes from a real batch-1 probe when its op reads data.
  if (t.device().type == DeviceType::Meta) throw NoDataError(std::string(op) + ": a search needs the points' values");
  STRATA_CHECK(t.device().type == DeviceType::CPU, op, ": ", what, " is on ", t.device().str(),
               "; point-cloud searches run on the CPU (move the cloud with .to(kCPU))");
  return t.detach().contiguous();
}

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
      for (int64_t i = 0; i < n; ++i) out[i] = (x[i] - qx) * (x[i] - qx) + (y[i] - qy) * (y[i] - qy) + (z[i] - qz) * (z[i] - qz);
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
void k_smallest(const T* dist, int64_t n, int64_t k, int64_t* out, std::vector<T>& best) {
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

// Queries and points of one search, checked against each other (batch, coordinates, dtype).
std::pair<Tensor, Tensor> search_pair(const Tensor& queries, const Tensor& points, const char* op) {
  const Tensor q = cloud(queries, op, "queries"), p = cloud(points, op, "points");
  STRATA_CHECK(q.size(0) == p.size(0) && q.size(2) == p.size(2), op, ": queries ", q.shape().str(), " and points ",
               p.shape().str(), " must have the same batch and coordinate sizes");
  STRATA_CHECK(q.dtype() == p.dtype(), op, ": queries and points have dtypes ", dtype_name(q.dtype()), " and ",
               dtype_name(p.dtype()));
  return {q, p};
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

}  // namespace

Tensor farthest_point_sample(const Tensor& points_in, int64_t m) {
  const Tensor points = cloud(points_in, "farthest_point_sample", "points");
  const int64_t B = points.size(0), N = points.size(1), D = points.size(2);
  STRATA_CHECK(m >= 1 && m <= N, "farthest_point_sample: m must be in [1, ", N, "], got ", m);
  Tensor out = Tensor::empty({B, m}, kInt64);
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

Tensor knn(const Tensor& queries_in, const Tensor& points_in, int64_t k) {
  const auto [queries, points] = search_pair(queries_in, points_in, "knn");
  const int64_t B = points.size(0), N = points.size(1), Q = queries.size(1);
  STRATA_CHECK(k >= 1 && k <= N, "knn: k must be in [1, ", N, "], got ", k);
  Tensor out = Tensor::empty({B, Q, k}, kInt64);
  int64_t* idx = out.data<int64_t>();
  for_each_query(queries, points, [&](int64_t bq, const auto* dist) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(dist)>>;
    thread_local std::vector<T> best;
    k_smallest(dist, N, k, idx + bq * k, best);
  });
  return out;
}

Tensor ball_query(const Tensor& queries_in, const Tensor& points_in, double radius, int64_t samples) {
  const auto [queries, points] = search_pair(queries_in, points_in, "ball_query");
  STRATA_CHECK(radius > 0 && std::isfinite(radius), "ball_query: radius must be positive and finite, got ", radius);
  STRATA_CHECK(samples >= 1, "ball_query: samples must be at least 1, got ", samples);
  const int64_t B = points.size(0), N = points.size(1), Q = queries.size(1);
  Tensor out = zeros({B, Q, samples}, kInt64);
  int64_t* idx = out.data<int64_t>();
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

Tensor group_points(const Tensor& features, const Tensor& idx) {
  ops::check_defined(features, "group_points", "features");
  ops::check_defined(idx, "group_points", "idx");
  STRATA_CHECK(features.dim() == 3, "group_points: features must be [B, N, C], got ", features.shape().str());
  STRATA_CHECK(idx.dtype() == kInt64 && idx.dim() >= 1 && idx.size(0) == features.size(0), "group_points: idx must be "
               "int64 [B, ...] with B = ", features.size(0), ", got ", dtype_name(idx.dtype()), " ", idx.shape().str());
  const int64_t B = features.size(0), N = features.size(1), C = features.size(2);
  // One index_select over the clouds side by side: cloud b's point n is row b * N + n.
  const Tensor offsets = (arange(B, {kInt64, idx.device()}) * N).reshape({B, 1});
  const Tensor rows = idx.reshape({B, -1});
  if (rows.numel() > 0) {
    const double lowest = amin(rows).item_double(), highest = amax(rows).item_double();
    STRATA_CHECK(lowest >= 0 && highest < static_cast<double>(N), "group_points: indices run from ", lowest, " to ",
                 highest, ", outside [0, ", N, ")");
  }
  const Tensor flat = (rows + offsets).reshape({-1});
  Shape shape = idx.shape();
  shape.push_back(C);
  return index_select(features.reshape({B * N, C}), 0, flat).reshape(shape);
}

Tensor three_interpolate(const Tensor& features, const Tensor& known, const Tensor& unknown) {
  ops::check_defined(features, "three_interpolate", "features");
  STRATA_CHECK(features.dim() == 3 && known.defined() && known.dim() == 3 && features.size(0) == known.size(0) &&
                   features.size(1) == known.size(1),
               "three_interpolate: features [B, N, C] must match known points [B, N, D], got ",
               features.shape().str(), " and ", known.defined() ? known.shape().str() : "undefined");
  STRATA_CHECK(known.size(1) >= 3, "three_interpolate: needs at least 3 known points, got ", known.size(1));
  const Tensor idx = knn(unknown, known, 3);                                     // [B, Q, 3]
  const Tensor near = group_points(known.detach(), idx);                         // [B, Q, 3, D]
  const Tensor gap = near - unsqueeze(unknown.detach(), 2);
  const Tensor inverse = 1.0 / (sqrt(sum(gap * gap, {3})) + 1e-8);              // [B, Q, 3]
  const Tensor weights = cast(inverse / sum(inverse, {2}, true), features.dtype());
  return sum(group_points(features, idx) * unsqueeze(weights, 3), {2});         // [B, Q, C]
}

Tensor chamfer_distance(const Tensor& a, const Tensor& b) {
  ops::check_defined(a, "chamfer_distance", "a");
  ops::check_defined(b, "chamfer_distance", "b");
  STRATA_CHECK(a.dim() == 3 && b.dim() == 3 && a.size(0) == b.size(0) && a.size(2) == b.size(2),
               "chamfer_distance: expected clouds [B, N, D] and [B, M, D], got ", a.shape().str(), " and ",
               b.shape().str());
  STRATA_CHECK(a.size(1) > 0 && b.size(1) > 0, "chamfer_distance: a cloud is empty");
  // |x - y|^2 = |x|^2 + |y|^2 - 2 x.y as one [B, N, M] matrix (no [B, N, M, D] difference),
  // clamped at 0 where rounding makes it negative.
  const Tensor cross = matmul(a, b.transpose(1, 2));
  const Tensor d2 = clamp(unsqueeze(sum(a * a, {2}), 2) + unsqueeze(sum(b * b, {2}), 1) - 2.0 * cross, 0.0,
                          std::numeric_limits<double>::infinity());
  return mean(amin(d2, {2}), {1}) + mean(amin(d2, {1}), {1});
}

}  // namespace strata
