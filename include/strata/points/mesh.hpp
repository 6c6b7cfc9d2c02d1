// Triangle meshes as point clouds: points drawn uniformly over a mesh's surface, the way
// PointNet's ModelNet clouds are made from its meshes.
#pragma once
#include <cstdint>

#include "strata/core/tensor.hpp"

namespace strata::points {

// `count` points uniform over the surface of the mesh with vertices [V, 3] (float32 or float64)
// and triangles faces [F, 3] (int64): a triangle is drawn with probability proportional to its
// area, then a point uniform inside it. Returns float32 [count, 3]; the same seed gives the same
// points. Throws strata::Error for bad shapes, a face index outside [0, V), or a mesh whose
// triangles have no area (nothing to sample from).
Tensor sample_surface(const Tensor& vertices, const Tensor& faces, int64_t count, uint64_t seed);

}  // namespace strata::points
