#include "strata/points/scatter.hpp"

#include <cmath>

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/dispatch/pointcloud.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/pairwise_distances.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata::points {
namespace {

// t's values on its own device (detached, contiguous), refusing an undefined tensor.
Tensor values_of(const Tensor& t, const char* op, const char* what) {
  STRATA_CHECK(t.defined(), op, ": ", what, " is undefined");
  return t.detach().contiguous();
}

}  // namespace

// The rows of each cell's maxima come from the device's scatter_max_rows (dispatch/pointcloud.hpp);
// the result is then a gather of src, so the gradient goes to those rows. Cells no row reaches
// gather row 0, replaced by 0.
Tensor scatter_max(const Tensor& src, const Tensor& index, int64_t count) {
  const Tensor s = values_of(src, "scatter_max", "src"), idx = values_of(index, "scatter_max", "index");
  STRATA_CHECK(s.dim() == 2 && (s.dtype() == kFloat32 || s.dtype() == kFloat64), "scatter_max: src must be float [N, C], got ",
               dtype_name(s.dtype()), " ", s.shape().str());
  STRATA_CHECK(idx.dtype() == kInt64 && idx.dim() == 1 && idx.size(0) == s.size(0), "scatter_max: index must be int64 [",
               s.size(0), "], got ", dtype_name(idx.dtype()), " ", idx.shape().str());
  STRATA_CHECK(count >= 0, "scatter_max: count must be >= 0, got ", count);
  const Tensor rows = dispatch::scatter_max_rows(s, idx, count);  // -1 where no row reaches
  if (s.size(0) == 0) return zeros({count, s.size(1)}, {s.dtype(), s.device()});
  const Tensor reached = rows > -1.0;
  const Tensor gathered = gather(src, 0, where(reached, rows, zeros_like(rows)));
  return where(reached, gathered, zeros_like(gathered));  // +0, whatever the sign of row 0's values
}

// The cells come from the device's voxel_cells, on float64 coordinates.
Voxels voxelize(const Tensor& points, double voxel_size) {
  const Tensor p = values_of(points, "voxelize", "points");
  STRATA_CHECK(p.dim() == 2 && p.size(1) >= 3, "voxelize: points must be [N, 3 + F], got ", p.shape().str());
  STRATA_CHECK(std::isfinite(voxel_size) && voxel_size > 0, "voxelize: voxel_size must be a positive number, got ", voxel_size);
  const dispatch::VoxelCells cells = dispatch::voxel_cells(cast(p.narrow(1, 0, 3), kFloat64).contiguous(), voxel_size);
  return {cells.point_voxel, cells.coordinates, cells.counts};
}

Tensor earth_movers_distance(const Tensor& a, const Tensor& b, double epsilon, int64_t iterations) {
  STRATA_CHECK(a.defined() && b.defined() && a.dim() == 3 && b.dim() == 3 && a.shape() == b.shape(),
               "earth_movers_distance: expected clouds a and b [B, N, D] of the same shape, got ",
               a.defined() ? a.shape().str() : "undefined", " and ", b.defined() ? b.shape().str() : "undefined");
  STRATA_CHECK(a.size(1) > 0, "earth_movers_distance: the clouds are empty");
  STRATA_CHECK(std::isfinite(epsilon) && epsilon > 0 && iterations >= 1,
               "earth_movers_distance: expected epsilon > 0 and iterations >= 1, got ", epsilon, " and ", iterations);
  Tensor plan;
  {
    NoGradGuard no_grad;
    // Sinkhorn in the log domain with uniform weights 1/N on both sides, in float64 so that
    // exp(-cost / eps) neither underflows to a zero row nor loses the plan's small entries.
    const Tensor cost = pairwise_squared_distances(cast(a.detach(), kFloat64), cast(b.detach(), kFloat64));
    const int64_t n = a.size(1);
    const double eps = epsilon * std::max(mean(cost).item<double>(), 1e-12), log_n = std::log(static_cast<double>(n));
    const Tensor scaled = cost * (-1.0 / eps);
    Tensor f = zeros({a.size(0), n, 1}, kFloat64), g = zeros({a.size(0), 1, n}, kFloat64);
    for (int64_t it = 0; it < iterations; ++it) {
      f = -(logsumexp(scaled + g, {2}, true) + log_n);  // rows sum to 1 / N
      g = -(logsumexp(scaled + f, {1}, true) + log_n);  // columns sum to 1 / N
    }
    plan = cast(exp(scaled + f + g), a.dtype());  // [B, N, N], sums to 1
  }
  return sum(plan * pairwise_squared_distances(a, b), {1, 2});
}

}  // namespace strata::points
