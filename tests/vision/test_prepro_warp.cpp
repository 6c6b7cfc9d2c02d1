// Swirl and the projective warp by points against TensorLayer 2.2.5 (fixtures/tl_prepro_warp.npz
// from make_tl_prepro_fixtures.py). Both sides interpolate bilinearly in double: float images
// agree to 1e-9 (the homography is found by another eigen-solver); uint8 ones, rounded here and
// not in TensorLayer, to half a grey level.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "strata/vision/prepro.hpp"
#include "support/expect_error.hpp"
#include "support/max_abs_diff.hpp"
#include "tl_prepro_fixture.hpp"

namespace strata {
namespace {

TEST(TlPreproWarp, HomographyMatchesScikitImage) {
  for (const std::string n : {"", "six_"}) {
    const auto& f = testing::tl_prepro_fixture("warp");
    const auto h = vision::estimate_projective(testing::tl_prepro_pairs(f.at(n + "src")),
                                               testing::tl_prepro_pairs(f.at(n + "dst")));
    const auto want = f.at(n.empty() ? "estimate_4" : "estimate_6").to_vector<double>();
    for (int i = 0; i < 9; ++i)
      EXPECT_NEAR(h[i], want[size_t(i)], 1e-9 * (1 + std::abs(want[size_t(i)]))) << n << " " << i;
  }
}

TEST(TlPreproWarp, ProjectiveTransformByPointsMatchesTensorLayer) {
  const auto& f = testing::tl_prepro_fixture("warp");
  const auto src = testing::tl_prepro_pairs(f.at("src")), dst = testing::tl_prepro_pairs(f.at("dst"));
  EXPECT_LE(max_abs_diff(vision::projective_transform_by_points(f.at("image"), src, dst), f.at("projective")), 1e-9);
  EXPECT_LE(max_abs_diff(vision::projective_transform_by_points(f.at("image"), src, dst, 1.5), f.at("projective_fill")),
            1e-9);
  // TensorLayer returns uint8 images divided by 255; here they stay uint8.
  const Tensor grey = vision::projective_transform_by_points(f.at("grey"), src, dst);
  EXPECT_EQ(grey.dtype(), kUInt8);
  const std::vector<double> g = grey.to_vector<double>(), want = f.at("projective_grey").to_vector<double>();
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i] / 255, want[i], 0.5 / 255 + 1e-9) << i;
}

TEST(TlPreproWarp, SwirlMatchesTensorLayer) {
  const auto& f = testing::tl_prepro_fixture("warp");
  const std::vector<double> s = f.at("swirls").to_vector<double>();
  for (size_t k = 0; k < s.size() / 6; ++k) {
    const double* p = &s[6 * k];
    vision::SwirlOptions options{.strength = p[2], .radius = p[3], .rotation_degrees = p[4]};
    if (!std::isnan(p[0])) options.center = std::array<double, 2>{p[0], p[1]};
    const std::string n = std::to_string(k);
    EXPECT_LE(max_abs_diff(vision::swirl(f.at("image"), options, p[5]), f.at("swirl_" + n)), 1e-9) << "swirl " << n;
    EXPECT_LE(max_abs_diff(vision::swirl(f.at("grey"), options), f.at("swirl_grey_" + n)), 0.5 + 1e-9)
        << "grey swirl " << n;
  }
}

TEST(TlPreproWarp, IdentityPointsAndZeroStrengthLeaveTheImage) {
  const Tensor& image = testing::tl_prepro_fixture("warp").at("image");
  const auto src = testing::tl_prepro_pairs(testing::tl_prepro_fixture("warp").at("src"));
  EXPECT_LE(max_abs_diff(vision::projective_transform_by_points(image, src, src), image), 1e-12);
  EXPECT_LE(max_abs_diff(vision::swirl(image, {.strength = 0}), image), 1e-12);
}

TEST(TlPreproWarp, BadPointsAreErrors) {
  const Tensor image = zeros({4, 4});
  testing::expect_error(
      [&] {
        vision::projective_transform_by_points(image, {{0, 0}, {1, 0}, {0, 1}}, {{0, 0}, {1, 0}, {0, 1}});
      },
      {"estimate_projective", "between 4 and 4096", "3"});
  testing::expect_error(
      [&] {
        vision::estimate_projective({{1, 1}, {1, 1}, {1, 1}, {1, 1}}, {{0, 0}, {1, 0}, {0, 1}, {1, 1}});
      },
      {"estimate_projective", "coincide"});
  testing::expect_error([&] { vision::swirl(image, {.radius = 0}); }, {"swirl", "radius"});
  testing::expect_error([] { vision::swirl(zeros({0, 3})); }, {"swirl", "non-empty"});
}

}  // namespace
}  // namespace strata
