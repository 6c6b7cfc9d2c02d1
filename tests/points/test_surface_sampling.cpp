// sample_surface: points lie on the mesh, triangles are chosen by area and filled uniformly,
// the seed decides the points, and bad meshes are refused.
#include <gtest/gtest.h>

#include <cmath>

#include "strata/core/factory.hpp"
#include "strata/points/mesh.hpp"
#include "support/expect_error.hpp"

namespace surface_sampling_test {

using namespace strata;
using strata::testing::expect_error;

// The unit square at z = 0 (two triangles, area 1) and a right triangle of area 3 at z = 5.
Tensor vertices() {
  return from_vector(std::vector<float>{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 5, 3, 0, 5, 0, 2, 5}, Shape{7, 3});
}
Tensor face_list(std::vector<int64_t> indices) {
  const int64_t n = static_cast<int64_t>(indices.size()) / 3;
  return from_vector(indices, Shape{n, 3});
}
Tensor faces() { return face_list({0, 1, 2, 0, 2, 3, 4, 5, 6}); }

TEST(SurfaceSampling, PicksTrianglesByAreaAndFillsThemUniformly) {
  const int64_t n = 8000;
  const std::vector<float> p = points::sample_surface(vertices(), faces(), n, 11).to_vector<float>();
  int64_t on_triangle = 0, left_half = 0, square = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float x = p[i * 3], y = p[i * 3 + 1], z = p[i * 3 + 2];
    if (z == 5) {
      ++on_triangle;
      EXPECT_GE(x, 0);
      EXPECT_GE(y, 0);
      EXPECT_LE(x / 3 + y / 2, 1 + 1e-6);  // inside the triangle
    } else {
      ASSERT_EQ(z, 0);
      ASSERT_TRUE(x >= 0 && x <= 1 && y >= 0 && y <= 1);
      ++square;
      left_half += x < 0.5;
    }
  }
  EXPECT_NEAR(on_triangle / double(n), 0.75, 0.03);       // area 3 of 4
  EXPECT_NEAR(left_half / double(square), 0.5, 0.04);     // uniform across both halves of the square
}

TEST(SurfaceSampling, TheSeedDecidesThePoints) {
  const Tensor a = points::sample_surface(vertices(), faces(), 50, 1);
  EXPECT_EQ(a.shape(), Shape({50, 3}));
  EXPECT_EQ(a.to_vector<float>(), points::sample_surface(vertices().to(kFloat64), faces(), 50, 1).to_vector<float>());
  EXPECT_NE(a.to_vector<float>(), points::sample_surface(vertices(), faces(), 50, 2).to_vector<float>());
}

TEST(SurfaceSampling, RefusesBadMeshes) {
  expect_error([] { points::sample_surface(vertices(), face_list({0, 1, 7}), 5, 0); },
               {"face 0 refers to vertex 7, but the mesh has 7 vertices"});
  expect_error([] { points::sample_surface(vertices(), face_list({0, 1, 1}), 5, 0); }, {"no area"});
  expect_error([] { points::sample_surface(vertices().narrow(1, 0, 2), faces(), 5, 0); }, {"expected [V, 3]"});
}

}  // namespace surface_sampling_test
