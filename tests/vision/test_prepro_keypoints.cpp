// The key-point flip with its left/right swap and the shortest-edge resize (OpenCV's INTER_AREA)
// against TensorLayer 2.2.5 with its random draws fixed (fixtures/tl_prepro_keypoints.npz from
// make_tl_prepro_fixtures.py). OpenCV resamples float32 in single precision and uint8 in fixed
// point; here it is double, rounded once: float images agree to 1e-3 of 255, uint8 to 1 level.
#include <gtest/gtest.h>

#include <string>

#include "strata/vision/prepro.hpp"
#include "support/expect_error.hpp"
#include "support/max_abs_diff.hpp"
#include "tl_prepro_fixture.hpp"

namespace strata {
namespace {

// [people, joints, 2] -> people's joint lists.
std::vector<std::vector<vision::KeypointXY>> prepro_keypoints_people(const std::string& name) {
  const Tensor& t = testing::tl_prepro_fixture("keypoints").at(name);
  const std::vector<double> v = t.to_vector<double>();
  std::vector<std::vector<vision::KeypointXY>> people(size_t(t.size(0)));
  for (size_t i = 0; i < v.size(); i += 2) people[i / size_t(2 * t.size(1))].push_back({v[i], v[i + 1]});
  return people;
}

TEST(TlPreproKeypoints, FlipSwapsLeftAndRightAsTensorLayer) {
  const auto& f = testing::tl_prepro_fixture("keypoints");
  const vision::KeypointImage in{f.at("image"), f.at("mask"), prepro_keypoints_people("people")};
  const auto out = vision::keypoint_flip(in);
  EXPECT_EQ(max_abs_diff(out.image, f.at("flip_image")), 0);
  EXPECT_EQ(max_abs_diff(out.mask, f.at("flip_mask")), 0);
  EXPECT_EQ(out.people, prepro_keypoints_people("flip_people"));
  // The random form: a draw below prob keeps the input.
  Generator gen(1);
  EXPECT_EQ(vision::keypoint_random_flip(in, 1.0, vision::kCocoFlipList, gen).people, in.people);
  EXPECT_EQ(vision::keypoint_random_flip(in, 0.0, vision::kCocoFlipList, gen).people, out.people);
  testing::expect_error([&] { vision::keypoint_flip(in, {0, 19}); }, {"keypoint_flip", "joint 19", "19 joints"});
}

TEST(TlPreproKeypoints, ShortestEdgeResizeMatchesTensorLayer) {
  const auto& f = testing::tl_prepro_fixture("keypoints");
  const std::vector<double> cases = f.at("shortest_cases").to_vector<double>();
  const auto joints = prepro_keypoints_people("joints");
  for (size_t k = 0; k < cases.size() / 3; ++k) {
    const auto min_h = int64_t(cases[3 * k]), min_w = int64_t(cases[3 * k + 1]);
    const double zoom = cases[3 * k + 2];
    const std::string n = std::to_string(k);
    const auto out = vision::keypoint_resize_shortestedge({f.at("floats"), f.at("float_mask"), joints}, min_h, min_w,
                                                          zoom, {1, 2, 3});
    EXPECT_LE(max_abs_diff(out.image, f.at("shortest_image_" + n)), 1e-3) << "case " << k;
    EXPECT_LE(max_abs_diff(out.mask, f.at("shortest_mask_" + n)), 1e-5) << "case " << k;
    EXPECT_EQ(out.people, prepro_keypoints_people("shortest_people_" + n)) << "case " << k;
    const auto u8 =
        vision::keypoint_resize_shortestedge({f.at("image"), f.at("mask"), joints}, min_h, min_w, zoom, {1, 2, 3});
    EXPECT_LE(max_abs_diff(u8.image, f.at("shortest_u8_" + n)), 1) << "uint8 case " << k;
  }
}

TEST(TlPreproKeypoints, AreaResizeAveragesWholeBlocks) {
  // Halving averages 2 x 2 blocks exactly; the same size is the identity.
  const Tensor image = rand({6, 8, 2}, kFloat64);
  const Tensor half = vision::resize_area(image, 3, 4);
  const std::vector<double> v = image.to_vector<double>(), h = half.to_vector<double>();
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t c = 0; c < 4; ++c)
      for (int64_t k = 0; k < 2; ++k) {
        double sum = 0;
        for (int64_t dr = 0; dr < 2; ++dr)
          for (int64_t dc = 0; dc < 2; ++dc) sum += v[size_t(((2 * r + dr) * 8 + 2 * c + dc) * 2 + k)];
        EXPECT_NEAR(h[size_t((r * 4 + c) * 2 + k)], sum / 4, 1e-12);
      }
  EXPECT_LE(max_abs_diff(vision::resize_area(image, 6, 8), image), 1e-15);
  testing::expect_error([&] { vision::resize_area(image, 0, 4); }, {"resize_area", "0 x 4"});
  testing::expect_error(
      [&] {
        vision::keypoint_resize_shortestedge({image, zeros({5, 8}), {}});
      },
      {"keypoint_resize_shortestedge", "mask", "[5, 8]"});
}

}  // namespace
}  // namespace strata
