// One transform for an image and its mask, boxes and key points against TensorLayer 2.2.5's
// rotation_multi and shift_multi with fixed values (fixtures/tl_prepro_multi.npz from
// make_tl_prepro_fixtures.py): the image as TensorLayer's order=1 output, the mask as its order=0
// output, from one call.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "strata/vision/prepro.hpp"
#include "support/expect_error.hpp"
#include "support/max_abs_diff.hpp"
#include "tl_prepro_fixture.hpp"

namespace strata {
namespace {

TEST(TlPreproMulti, ImageAndMaskFollowTensorLayerWithTheirOwnInterpolation) {
  const auto& f = testing::tl_prepro_fixture("multi");
  const double degrees = f.at("rotation").item<double>();
  const std::vector<double> shift = f.at("shift").to_vector<double>();  // (wrg, hrg): fractions of W and H
  const double h = double(f.at("image").size(0)), w = double(f.at("image").size(1));
  // TensorLayer's matrices map output (row, col) to input; vision::Affine maps input (x, y) to output.
  // transform_matrix_offset_center puts the centre at row (W - 1) / 2, column (H - 1) / 2 (its x
  // and y swapped), so for this non-square image TensorLayer turns about a point (dx, dy) =
  // ((H - W) / 2, (W - H) / 2) away from the middle, where vision::Affine turns; and its positive
  // angle turns the other way (clockwise on screen).
  const vision::Affine to_tl_centre = vision::Affine::shift((h - w) / 2, (w - h) / 2);
  const std::vector<std::pair<std::string, vision::Affine>> cases = {
      {"rotation", to_tl_centre * vision::Affine::rotation(-degrees) * to_tl_centre.inverse()},
      {"shift", vision::Affine::shift(-shift[0] * w, -shift[1] * h)},
  };
  for (const auto& [name, affine] : cases) {
    const auto out = vision::affine_transform_multi({f.at("image"), f.at("mask"), {}, {}}, affine);
    EXPECT_LE(max_abs_diff(out.image, f.at(name + "_image_1")), 1e-9) << name;
    EXPECT_EQ(max_abs_diff(out.mask, f.at(name + "_mask_0")), 0) << name;
  }
}

// The box around the mask's labelled pixels still holds them after the move, and a key point on
// a labelled pixel centre lands on a labelled pixel.
TEST(TlPreproMulti, BoxesAndPointsMoveWithThePixels) {
  const int64_t h = 20, w = 24;
  std::vector<double> m(size_t(h * w), 0.0);
  for (int64_t r = 6; r < 11; ++r)
    for (int64_t c = 8; c < 15; ++c) m[size_t(r * w + c)] = 1;
  const vision::MultiTargets in{zeros({h, w, 3}), from_vector(m, {h, w}), {{8, 6, 15, 11}}, {{9.5, 7.5}}};
  Generator gen(5);
  for (int i = 0; i < 5; ++i) {
    const auto out = vision::random_affine_transform_multi(
        in, {.rotation_degrees = 30, .shift_x = 3, .shift_y = 2, .zoom = 0.2}, gen);
    ASSERT_EQ(out.mask.shape(), in.mask.shape());
    const std::vector<double> moved = out.mask.to_vector<double>();
    const vision::Box& box = out.boxes.at(0);
    for (int64_t r = 0; r < h; ++r)
      for (int64_t c = 0; c < w; ++c)
        if (moved[size_t(r * w + c)] != 0) {
          EXPECT_GE(c + 0.5, box.x1 - 0.5);
          EXPECT_LE(c + 0.5, box.x2 + 0.5);
          EXPECT_GE(r + 0.5, box.y1 - 0.5);
          EXPECT_LE(r + 0.5, box.y2 + 0.5);
        }
    const vision::Point p = out.points.at(0);
    const int64_t pr = std::clamp<int64_t>(int64_t(p.y), 0, h - 1), pc = std::clamp<int64_t>(int64_t(p.x), 0, w - 1);
    EXPECT_EQ(moved[size_t(pr * w + pc)], 1) << "point at (" << p.x << ", " << p.y << ")";
  }
  testing::expect_error(
      [&] {
        vision::affine_transform_multi({zeros({4, 4, 1}), zeros({3, 4}), {}, {}}, vision::Affine{});
      },
      {"affine_transform_multi", "mask", "[3, 4]"});
}

}  // namespace
}  // namespace strata
