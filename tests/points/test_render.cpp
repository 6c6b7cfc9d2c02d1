// Point-cloud pictures (strata/points/render.hpp): points land where the camera puts them, in
// their label's colour, the nearest in front; grids caption their cells; PNGs round-trip.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "strata/core/factory.hpp"
#include "strata/data/image_codec.hpp"
#include "strata/points/render.hpp"
#include "strata/points/synthetic_shapes.hpp"
#include "strata/viz/visualize.hpp"

namespace strata::points {
namespace render_test {

std::vector<uint8_t> pixel(const std::vector<uint8_t>& image, int64_t width, int64_t row, int64_t col) {
  const auto at = static_cast<size_t>((row * width + col) * 3);
  return {image[at], image[at + 1], image[at + 2]};
}

const std::vector<uint8_t> kWhite{255, 255, 255};

TEST(PointRender, PointsLandWhereTheCameraPutsThemInTheirLabelsColour) {
  // Four points on the axes at depth 0, seen from the front, orthographic: the centre (0, 0)
  // goes to pixel (50, 50) and the farthest point (distance 1) 0.95 * 50.5 pixels away.
  const Tensor cloud = tensor({-1.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, -1.0f, 0.0f}, {4, 3});
  RenderOptions o{.width = 101, .height = 101, .azimuth = 0, .elevation = 0};
  const Tensor image = render_cloud(cloud, tensor({0, 1, 2, 3}), o);
  ASSERT_EQ(image.shape(), Shape({101, 101, 3}));
  ASSERT_EQ(image.dtype(), kUInt8);
  const std::vector<uint8_t> v = image.to_vector<uint8_t>();
  const int64_t where[4][2] = {{50, 2}, {50, 98}, {2, 50}, {98, 50}};  // (row, col): left, right, up, down
  for (int k = 0; k < 4; ++k) EXPECT_EQ(pixel(v, 101, where[k][0], where[k][1]), viz::curve_color(k)) << "point " << k;
  // Everything else is background: each painted pixel is within the disc radius (2) of a point.
  int64_t painted = 0;
  for (int64_t row = 0; row < 101; ++row)
    for (int64_t col = 0; col < 101; ++col) {
      if (pixel(v, 101, row, col) == kWhite) continue;
      ++painted;
      bool near = false;
      for (const auto& w : where) near |= (row - w[0]) * (row - w[0]) + (col - w[1]) * (col - w[1]) <= 5;
      EXPECT_TRUE(near) << "pixel (" << row << ", " << col << ")";
    }
  EXPECT_GE(painted, 4 * 9);  // a disc of radius 2 covers at least 9 pixels
}

TEST(PointRender, TheNearestPointIsInFrontAndFarPointsAreDarker) {
  // Two points on the view axis, one at +z (towards the camera at azimuth 0), one at -z.
  const Tensor cloud = tensor({0.0f, 0.0f, 0.5f, 0.0f, 0.0f, -0.5f}, {2, 3});
  const Tensor labels = tensor({1, 2});
  RenderOptions o{.width = 21, .height = 21, .azimuth = 0, .elevation = 0};
  const std::vector<uint8_t> front = viz::curve_color(1), back = viz::curve_color(2);
  EXPECT_EQ(pixel(render_cloud(cloud, labels, o).to_vector<uint8_t>(), 21, 10, 10), front);
  o.azimuth = 180;  // from behind: the other point is in front; the near one's colour is as it is
  EXPECT_EQ(pixel(render_cloud(cloud, labels, o).to_vector<uint8_t>(), 21, 10, 10), back);
  // From above (elevation 90) both are seen side by side, +z at the bottom; the one farther
  // from the camera... at the same height, so equally bright. Lift one: it is nearer, the
  // other darker by depth_shading.
  const Tensor lifted = tensor({0.0f, 0.2f, 0.5f, 0.0f, -0.2f, -0.5f}, {2, 3});
  o = {.width = 21, .height = 21, .azimuth = 0, .elevation = 90, .depth_shading = 0.5};
  const std::vector<uint8_t> top = render_cloud(lifted, labels, o).to_vector<uint8_t>();
  EXPECT_EQ(pixel(top, 21, 20, 10), front);  // at +z: the bottom edge, nearest
  const std::vector<uint8_t> far = pixel(top, 21, 0, 10);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(far[c], back[c] * 0.5, 0.51);
}

TEST(PointRender, ScalarsUseTheColourMapAndBadInputIsRefused) {
  const Tensor cloud = tensor({-1.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f}, {2, 3});
  RenderOptions o{.width = 101, .height = 101, .azimuth = 0, .elevation = 0};
  const std::vector<uint8_t> v = render_cloud(cloud, tensor({0.0f, 10.0f}), o).to_vector<uint8_t>();
  EXPECT_EQ(pixel(v, 101, 50, 2), (std::vector<uint8_t>{68, 1, 84}));     // the minimum: viridis' dark end
  EXPECT_EQ(pixel(v, 101, 50, 98), (std::vector<uint8_t>{253, 231, 37}));  // the maximum: its yellow
  EXPECT_THROW(render_cloud(cloud, tensor({0, 1, 2}), o), Error);
  EXPECT_THROW(render_cloud(cloud, tensor({0, -1}), o), Error);
  EXPECT_THROW(render_cloud(zeros({2, 2}), {}, o), Error);
  EXPECT_THROW(render_cloud(cloud, {}, {.width = 0}), Error);
}

TEST(PointRender, GridPlacesEachCloudInItsCellAndRoundTripsThroughPng) {
  const data::Dataset shapes = synthetic_part_shapes(3, 1, {.points = 512});
  std::vector<Tensor> clouds, parts;
  for (const data::Example& ex : shapes) clouds.push_back(ex[0]), parts.push_back(ex[1]);
  RenderOptions o{.width = 64, .height = 48};
  const Tensor grid = render_grid(clouds, parts, {"chair", "table", "lamp"}, 2, o);
  ASSERT_EQ(grid.shape(), Shape({96, 128, 3}));
  // Cell 1 (top right) is cloud 1's picture but for its frame and caption tab; cell 3 is empty.
  const std::vector<uint8_t> g = grid.to_vector<uint8_t>(), one = render_cloud(clouds[1], parts[1], o).to_vector<uint8_t>();
  for (int64_t row = 16; row < 47; ++row)
    for (int64_t col = 1; col < 63; ++col) ASSERT_EQ(pixel(g, 128, row, 64 + col), pixel(one, 64, row, col));
  EXPECT_EQ(pixel(g, 128, 0, 64 + 1), viz::curve_color(7)) << "the caption's tab, grey";
  EXPECT_EQ(pixel(g, 128, 70, 100), kWhite);
  const auto path = std::filesystem::temp_directory_path() / "strata_points_render_test.png";
  data::write_image(path.string(), grid);
  EXPECT_EQ(data::read_image(path.string()).to_vector<uint8_t>(), g);
  std::filesystem::remove(path);
  EXPECT_THROW(render_grid(clouds, parts, {"one caption"}), Error);
}

// The picture in docs/pointclouds.md; run with --gtest_also_run_disabled_tests.
TEST(PointRender, DISABLED_WriteTheDocsPicture) {
  const data::Dataset shapes = synthetic_part_shapes(5, 4, {.points = 2048, .max_tilt = 0.1, .occlusion = 0, .noise = 0.004});
  std::vector<Tensor> clouds, parts;
  std::vector<std::string> captions;
  for (const data::Example& ex : shapes) {
    clouds.push_back(ex[0]), parts.push_back(ex[1]);
    captions.push_back(synthetic_part_categories()[ex[2].item<int64_t>()].name);
  }
  const Tensor grid = render_grid(clouds, parts, captions, 5, {.width = 200, .height = 200, .elevation = 25, .point_radius = 1.6});
  data::write_image(std::string(STRATA_TESTS_DIR) + "/../docs/images/pointclouds_parts.png", grid);
}

}  // namespace render_test
}  // namespace strata::points
