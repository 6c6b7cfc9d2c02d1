// Mesh normals and the gradient of surface sampling (strata/points/mesh.hpp), on meshes whose
// normals are known.
#include <gtest/gtest.h>

#include <cmath>

#include "strata/strata.hpp"
#include "strata/points/mesh.hpp"

namespace strata::points {
namespace mesh_normals_test {

// A tetrahedron wound counter-clockwise seen from outside, its corners around the origin.
Tensor tetra_vertices() { return from_vector<double>({1, 1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1}, {4, 3}); }
Tensor tetra_faces() { return from_vector<int64_t>({0, 1, 2, 0, 3, 1, 0, 2, 3, 1, 3, 2}, {4, 3}); }

TEST(MeshNormals, FaceNormalsFollowTheWindingAndVertexNormalsPointOut) {
  // A triangle in the xy plane, counter-clockwise from +z, and one without area.
  const Tensor flat = face_normals(from_vector<double>({0, 0, 0, 2, 0, 0, 0, 3, 0, 5, 5, 5}, {4, 3}),
                                   from_vector<int64_t>({0, 1, 2, 3, 3, 3}, {2, 3}));
  EXPECT_EQ(flat.to_vector<double>(), (std::vector<double>{0, 0, 1, 0, 0, 0}));
  // The regular tetrahedron: each face's normal is minus the direction of the corner it lacks,
  // each vertex normal the direction of its corner.
  const std::vector<double> v = tetra_vertices().to_vector<double>();
  const std::vector<double> faces = face_normals(tetra_vertices(), tetra_faces()).to_vector<double>();
  const int missing[4] = {3, 2, 1, 0};
  for (int f = 0; f < 4; ++f)
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(faces[f * 3 + k], -v[missing[f] * 3 + k] / std::sqrt(3.0), 1e-12) << f;
  const std::vector<double> vertices = vertex_normals(tetra_vertices(), tetra_faces()).to_vector<double>();
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(vertices[i * 3 + k], v[i * 3 + k] / std::sqrt(3.0), 1e-12) << i;
  EXPECT_THROW(vertex_normals(tetra_vertices(), from_vector<int64_t>({0, 1, 4}, {1, 3})), Error);
}

TEST(MeshNormals, NormalsAndSampledPointsAreDifferentiableInTheVertices) {
  Tensor vertices = tetra_vertices().requires_grad_();
  // Every sampled point is a convex combination of its triangle's corners, so the gradient of
  // the sum of their x coordinates gives the vertices x-gradients summing to the point count.
  sum(sample_surface(vertices, tetra_faces(), 200, 3).narrow(1, 0, 1)).backward();
  const std::vector<double> g = vertices.grad().to_vector<double>();
  double x_total = 0, other = 0;
  for (int i = 0; i < 4; ++i) x_total += g[i * 3], other += std::abs(g[i * 3 + 1]) + std::abs(g[i * 3 + 2]);
  EXPECT_NEAR(x_total, 200.0, 1e-9);
  EXPECT_EQ(other, 0.0);
  // Normals: against central differences of one vertex coordinate.
  const auto first_normal_z = [](const Tensor& v) { return face_normals(v, tetra_faces()).to_vector<double>()[2]; };
  vertices.zero_grad();
  face_normals(vertices, tetra_faces()).narrow(0, 0, 1).narrow(1, 2, 1).sum().backward();
  Tensor plus = tetra_vertices(), minus = tetra_vertices();
  plus.data<double>()[1] += 1e-6, minus.data<double>()[1] -= 1e-6;
  EXPECT_NEAR(vertices.grad().to_vector<double>()[1], (first_normal_z(plus) - first_normal_z(minus)) / 2e-6, 1e-6);
}

}  // namespace mesh_normals_test
}  // namespace strata::points
