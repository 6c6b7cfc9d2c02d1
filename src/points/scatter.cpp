#include "strata/points/scatter.hpp"

#include <array>
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/pairwise_distances.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata::points {
namespace {

// Host data of t (detached, contiguous), refusing tensors whose values are not here.
Tensor host_values(const Tensor& t, const char* op, const char* what) {
  STRATA_CHECK(t.defined(), op, ": ", what, " is undefined");
  if (t.device().type == DeviceType::Meta) throw NoDataError(std::string(op) + ": needs the values of " + what);
  STRATA_CHECK(t.device().type == DeviceType::CPU, op, ": ", what, " is on ", t.device().str(), "; this op runs on the CPU");
  return t.detach().contiguous();
}

template <class T>
void best_rows(const T* src, const int64_t* index, int64_t n, int64_t c, int64_t* best) {
  for (int64_t i = 0; i < n; ++i) {
    const T* row = src + i * c;
    int64_t* cell = best + index[i] * c;
    for (int64_t j = 0; j < c; ++j)
      if (cell[j] < 0 || row[j] > src[cell[j] * c + j]) cell[j] = i;
  }
}

}  // namespace

Tensor scatter_max(const Tensor& src, const Tensor& index, int64_t count) {
  const Tensor s = host_values(src, "scatter_max", "src"), idx = host_values(index, "scatter_max", "index");
  STRATA_CHECK(s.dim() == 2 && (s.dtype() == kFloat32 || s.dtype() == kFloat64), "scatter_max: src must be float [N, C], got ",
               dtype_name(s.dtype()), " ", s.shape().str());
  STRATA_CHECK(idx.dtype() == kInt64 && idx.dim() == 1 && idx.size(0) == s.size(0), "scatter_max: index must be int64 [",
               s.size(0), "], got ", dtype_name(idx.dtype()), " ", idx.shape().str());
  STRATA_CHECK(count >= 0, "scatter_max: count must be >= 0, got ", count);
  const int64_t n = s.size(0), c = s.size(1);
  const int64_t* ids = idx.data<int64_t>();
  for (int64_t i = 0; i < n; ++i)
    STRATA_CHECK(ids[i] >= 0 && ids[i] < count, "scatter_max: index[", i, "] = ", ids[i], " is outside [0, ", count, ")");
  // Which row holds each cell's maximum, found on the host; the result is then a gather of src,
  // so the gradient goes to those rows. Cells no row reaches take row 0 and are zeroed.
  std::vector<int64_t> best(static_cast<size_t>(count * c), -1);
  if (s.dtype() == kFloat32) best_rows(s.data<float>(), ids, n, c, best.data());
  else best_rows(s.data<double>(), ids, n, c, best.data());
  std::vector<double> reached(best.size());
  for (size_t k = 0; k < best.size(); ++k) {
    reached[k] = best[k] >= 0 ? 1.0 : 0.0;
    if (best[k] < 0) best[k] = 0;
  }
  if (n == 0) return zeros({count, c}, s.dtype());
  const Tensor rows = from_vector(best, {count, c});
  return gather(src, 0, rows) * cast(from_vector(reached, {count, c}), src.dtype());
}

Voxels voxelize(const Tensor& points, double voxel_size) {
  const Tensor p = host_values(points, "voxelize", "points");
  STRATA_CHECK(p.dim() == 2 && p.size(1) >= 3, "voxelize: points must be [N, 3 + F], got ", p.shape().str());
  STRATA_CHECK(std::isfinite(voxel_size) && voxel_size > 0, "voxelize: voxel_size must be a positive number, got ", voxel_size);
  const Tensor xyz = cast(p.narrow(1, 0, 3), kFloat64).contiguous();
  const double* v = xyz.data<double>();
  const int64_t n = p.size(0);
  constexpr double kLimit = 1099511627776.0;  // 2^40 cells per axis: three fit one 128-bit key
  std::unordered_map<std::string, int64_t> ids;  // the cell's three int64 as bytes
  std::vector<int64_t> point_voxel(static_cast<size_t>(n)), coordinates, counts;
  for (int64_t i = 0; i < n; ++i) {
    std::array<int64_t, 3> cell{};
    for (int a = 0; a < 3; ++a) {
      const double q = std::floor(v[i * 3 + a] / voxel_size);
      STRATA_CHECK(std::isfinite(q) && std::abs(q) < kLimit, "voxelize: point ", i, " coordinate ", a, " = ",
                   v[i * 3 + a], " is ", q, " voxels out; at most 2^40 per axis");
      cell[a] = static_cast<int64_t>(q);
    }
    const auto [at, added] = ids.try_emplace(std::string(reinterpret_cast<const char*>(cell.data()), sizeof cell),
                                             static_cast<int64_t>(counts.size()));
    if (added) {
      coordinates.insert(coordinates.end(), cell.begin(), cell.end());
      counts.push_back(0);
    }
    point_voxel[i] = at->second;
    ++counts[at->second];
  }
  const int64_t voxels = static_cast<int64_t>(counts.size());
  return {from_vector(point_voxel, {n}), from_vector(coordinates, {voxels, 3}), from_vector(counts, {voxels})};
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
