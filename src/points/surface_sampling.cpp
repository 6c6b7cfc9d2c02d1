#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/points/mesh.hpp"

namespace strata::points {

Tensor sample_surface(const Tensor& vertices, const Tensor& faces, int64_t count, uint64_t seed) {
  STRATA_CHECK(vertices.dim() == 2 && vertices.size(1) == 3 && (vertices.dtype() == kFloat32 || vertices.dtype() == kFloat64),
               "sample_surface: vertices are ", vertices.shape().str(), " ", dtype_name(vertices.dtype()),
               "; expected [V, 3] float32 or float64");
  STRATA_CHECK(faces.dim() == 2 && faces.size(1) == 3 && faces.dtype() == kInt64, "sample_surface: faces are ",
               faces.shape().str(), " ", dtype_name(faces.dtype()), "; expected [F, 3] int64");
  STRATA_CHECK(count >= 0, "sample_surface: count is ", count, "; expected >= 0");
  const std::vector<double> v = vertices.to_vector<double>();
  const std::vector<int64_t> f = faces.to_vector<int64_t>();
  const int64_t vertex_count = vertices.size(0);
  for (size_t i = 0; i < f.size(); ++i)
    STRATA_CHECK(f[i] >= 0 && f[i] < vertex_count, "sample_surface: face ", i / 3, " refers to vertex ", f[i],
                 ", but the mesh has ", vertex_count, " vertices");
  // Twice each triangle's area, accumulated: a uniform draw over the total picks a triangle by area.
  std::vector<double> cumulative(f.size() / 3);
  double total = 0;
  for (size_t t = 0; t < cumulative.size(); ++t) {
    const double* a = &v[f[t * 3] * 3];
    const double* b = &v[f[t * 3 + 1] * 3];
    const double* c = &v[f[t * 3 + 2] * 3];
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double cross[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
    const double area = std::sqrt(cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]);
    total += std::isfinite(area) ? area : 0;
    cumulative[t] = total;
  }
  STRATA_CHECK(total > 0 && std::isfinite(total), "sample_surface: the mesh's ", cumulative.size(),
               " triangles have no area to sample from");
  // Which triangle and where in it are drawn here; the points are then a weighted sum of its
  // corners computed with ops, so they are differentiable in the vertices.
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<int64_t> corners(static_cast<size_t>(count) * 3);
  std::vector<double> weights(static_cast<size_t>(count) * 3);
  for (int64_t i = 0; i < count; ++i) {
    const double pick = uniform(engine) * total;
    const size_t t = std::min<size_t>(std::upper_bound(cumulative.begin(), cumulative.end(), pick) - cumulative.begin(),
                                      cumulative.size() - 1);
    // Uniform in the triangle: sqrt(r1) spreads the draws evenly between the corner and the far edge.
    const double r1 = std::sqrt(uniform(engine)), r2 = uniform(engine);
    const double w[3] = {1 - r1, r1 * (1 - r2), r1 * r2};
    for (int k = 0; k < 3; ++k) corners[i * 3 + k] = f[t * 3 + k], weights[i * 3 + k] = w[k];
  }
  // In float64, so that a point of a flat face lies exactly on it (z = 5 stays 5 in float32).
  const Tensor at_corners = index_select(cast(vertices, kFloat64), 0, from_vector(corners)).reshape({count, 3, 3});
  return cast(sum(at_corners * from_vector(weights, {count, 3, 1}), {1}), vertices.dtype());
}

}  // namespace strata::points
