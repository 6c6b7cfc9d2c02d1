// Point-cloud ops (strata/ops/pointcloud.hpp). The searches (sampling, neighbours, ball query)
// check their arguments here and run the kernels of the clouds' device through dispatch
// (strata/dispatch/pointcloud.hpp: CPU, meta and CUDA). The differentiable ops are built from
// existing ops, so their gradients, and their devices, come with them.
#include "strata/ops/pointcloud.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include "ops/op_common.hpp"
#include "strata/dispatch/pointcloud.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/pairwise_distances.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata {
namespace {

// A [B, N, D] float cloud, checked and made contiguous (on its own device).
Tensor cloud(const Tensor& t, const char* op, const char* what) {
  ops::check_defined(t, op, what);
  STRATA_CHECK(t.dim() == 3, op, ": ", what, " must be [B, N, D], got ", t.shape().str());
  STRATA_CHECK(t.dtype() == kFloat32 || t.dtype() == kFloat64, op, ": ", what, " must be float32 or float64, got ",
               dtype_name(t.dtype()));
  // A NaN or infinite coordinate has no nearest or farthest point: the kernels' comparisons
  // would leave slots unfilled. One reduction on the cloud's own device (x * 0 is NaN exactly
  // where x is not finite); a meta cloud has no values to check.
  if (t.device().type != DeviceType::Meta && t.numel() > 0)
    STRATA_CHECK(std::isfinite(sum(t.detach() * 0.0).item_double()), op, ": ", what,
                 " has a NaN or infinite coordinate");
  return t.detach().contiguous();
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

}  // namespace

Tensor farthest_point_sample(const Tensor& points_in, int64_t m) {
  const Tensor points = cloud(points_in, "farthest_point_sample", "points");
  const int64_t N = points.size(1);
  STRATA_CHECK(m >= 1 && m <= N, "farthest_point_sample: m must be in [1, ", N, "], got ", m);
  return dispatch::farthest_point_sample(points, m);
}

Tensor knn(const Tensor& queries_in, const Tensor& points_in, int64_t k) {
  const auto [queries, points] = search_pair(queries_in, points_in, "knn");
  const int64_t N = points.size(1);
  STRATA_CHECK(k >= 1 && k <= N, "knn: k must be in [1, ", N, "], got ", k);
  return dispatch::knn(queries, points, k);
}

Tensor ball_query(const Tensor& queries_in, const Tensor& points_in, double radius, int64_t samples) {
  const auto [queries, points] = search_pair(queries_in, points_in, "ball_query");
  STRATA_CHECK(radius > 0 && std::isfinite(radius), "ball_query: radius must be positive and finite, got ", radius);
  STRATA_CHECK(samples >= 1, "ball_query: samples must be at least 1, got ", samples);
  return dispatch::ball_query(queries, points, radius, samples);
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

Tensor pairwise_squared_distances(const Tensor& a, const Tensor& b) {
  return clamp(unsqueeze(sum(a * a, {2}), 2) + unsqueeze(sum(b * b, {2}), 1) - 2.0 * matmul(a, b.transpose(1, 2)), 0.0,
               std::numeric_limits<double>::infinity());
}

Tensor chamfer_distance(const Tensor& a, const Tensor& b) {
  ops::check_defined(a, "chamfer_distance", "a");
  ops::check_defined(b, "chamfer_distance", "b");
  STRATA_CHECK(a.dim() == 3 && b.dim() == 3 && a.size(0) == b.size(0) && a.size(2) == b.size(2),
               "chamfer_distance: expected clouds [B, N, D] and [B, M, D], got ", a.shape().str(), " and ",
               b.shape().str());
  STRATA_CHECK(a.size(1) > 0 && b.size(1) > 0, "chamfer_distance: a cloud is empty");
  const Tensor d2 = pairwise_squared_distances(a, b);
  return mean(amin(d2, {2}), {1}) + mean(amin(d2, {1}), {1});
}

}  // namespace strata
