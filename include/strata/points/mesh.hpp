// Triangle meshes as tensors, vertices [V, 3] (float) and faces [F, 3] (int64): points drawn
// uniformly over the surface, the way PointNet's ModelNet clouds are made from its meshes, and
// normals. All are differentiable in the vertices.
#pragma once
#include <cstdint>

#include "strata/core/tensor.hpp"

namespace strata::points {

// `count` points uniform over the surface of the mesh with vertices [V, 3] (float32 or float64)
// and triangles faces [F, 3] (int64): a triangle is drawn with probability proportional to its
// area, then a point uniform inside it. Returns [count, 3] in the vertices' dtype; the same seed
// gives the same points. The draws are constants: the points move with the vertices (gradients
// flow to the three corners of each point's triangle). Throws strata::Error for bad shapes, a
// face index outside [0, V), or a mesh whose triangles have no area (nothing to sample from).
Tensor sample_surface(const Tensor& vertices, const Tensor& faces, int64_t count, uint64_t seed);

// Unit normals of the triangles [F, 3], by the right-hand rule over their corners' order (counter-
// clockwise seen from outside, as PLY and OFF meshes are wound); a triangle without area gets 0.
Tensor face_normals(const Tensor& vertices, const Tensor& faces);
// Unit normals at the vertices [V, 3]: the sum of the normals of the triangles around each, each
// weighted by its area (so a sliver triangle counts little); a vertex in no triangle gets 0.
Tensor vertex_normals(const Tensor& vertices, const Tensor& faces);

}  // namespace strata::points
