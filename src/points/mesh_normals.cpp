#include <limits>
#include <string>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"
#include "strata/points/mesh.hpp"

namespace strata::points {
namespace {

// The three corners of every triangle, [F, 3 corners, 3 coordinates], after the faces' checks.
Tensor triangle_corners(const Tensor& vertices, const Tensor& faces, const char* op) {
  STRATA_CHECK(vertices.defined() && vertices.dim() == 2 && vertices.size(1) == 3 &&
                   (vertices.dtype() == kFloat32 || vertices.dtype() == kFloat64),
               op, ": vertices must be float [V, 3], got ", vertices.defined() ? vertices.shape().str() : "undefined");
  STRATA_CHECK(faces.defined() && faces.dim() == 2 && faces.size(1) == 3 && faces.dtype() == kInt64, op,
               ": faces must be int64 [F, 3], got ", faces.defined() ? faces.shape().str() : "undefined");
  if (faces.numel() > 0) {
    const double lowest = amin(faces).item_double(), highest = amax(faces).item_double();
    STRATA_CHECK(lowest >= 0 && highest < static_cast<double>(vertices.size(0)), op, ": faces refer to vertices ",
                 lowest, " to ", highest, ", but the mesh has ", vertices.size(0));
  }
  return index_select(vertices, 0, faces.reshape({-1})).reshape({faces.size(0), 3, 3});
}

// a x b over the last axis of [..., 3] tensors.
Tensor cross3(const Tensor& a, const Tensor& b) {
  auto axis = [](const Tensor& t, int64_t k) { return t.narrow(-1, k, 1); };
  return concat({axis(a, 1) * axis(b, 2) - axis(a, 2) * axis(b, 1), axis(a, 2) * axis(b, 0) - axis(a, 0) * axis(b, 2),
                 axis(a, 0) * axis(b, 1) - axis(a, 1) * axis(b, 0)},
                -1);
}

// Rows scaled to unit length; rows of length 0 stay 0.
Tensor unit_rows(const Tensor& v) {
  const Tensor length = sqrt(sum(v * v, {-1}, true));
  return v / clamp(length, 1e-30, std::numeric_limits<double>::infinity());
}

// (b - a) x (c - a) per triangle: twice its area times its unit normal.
Tensor area_normals(const Tensor& corners) {
  const Tensor a = corners.select(1, 0), b = corners.select(1, 1), c = corners.select(1, 2);
  return cross3(b - a, c - a);
}

}  // namespace

Tensor face_normals(const Tensor& vertices, const Tensor& faces) {
  return unit_rows(area_normals(triangle_corners(vertices, faces, "face_normals")));
}

Tensor vertex_normals(const Tensor& vertices, const Tensor& faces) {
  const Tensor weighted = area_normals(triangle_corners(vertices, faces, "vertex_normals"));  // [F, 3]
  // Each triangle's area-weighted normal added at its three corners.
  const Tensor at_corners = expand(unsqueeze(weighted, 1), {faces.size(0), 3, 3}).reshape({-1, 3});
  const Tensor rows = expand(faces.reshape({-1, 1}), {faces.numel(), 3}).contiguous();
  return unit_rows(scatter_add(zeros_like(vertices), 0, rows, at_corners));
}

}  // namespace strata::points
