// find_contours and pt2map against TensorLayer 2.2.5 (fixtures/tl_prepro_contours.npz from
// make_tl_prepro_fixtures.py): the same contours in the same order and direction, points to 1e-12.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "strata/vision/prepro.hpp"
#include "support/expect_error.hpp"
#include "support/max_abs_diff.hpp"
#include "tl_prepro_fixture.hpp"

namespace strata {
namespace {

TEST(TlPreproContours, FindContoursMatchesTensorLayer) {
  const auto& f = testing::tl_prepro_fixture("contours");
  for (int k = 0; f.contains("case_" + std::to_string(k)); ++k) {
    const std::string n = std::to_string(k);
    const std::vector<double> c = f.at("case_" + n).to_vector<double>();
    const auto side = [](double high) { return high != 0 ? vision::ContourSide::high : vision::ContourSide::low; };
    const auto got = vision::find_contours(f.at("image"), c[0], side(c[1]), side(c[2]));
    const std::vector<int64_t> lengths = f.at("lengths_" + n).to_vector<int64_t>();
    const auto want = testing::tl_prepro_pairs(f.at("points_" + n));
    ASSERT_EQ(got.size(), lengths.size()) << "case " << k;
    size_t at = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(int64_t(got[i].size()), lengths[i]) << "case " << k << " contour " << i;
      for (const auto& p : got[i]) {
        EXPECT_NEAR(p[0], want[at][0], 1e-12) << "case " << k << " contour " << i;
        EXPECT_NEAR(p[1], want[at][1], 1e-12) << "case " << k << " contour " << i;
        ++at;
      }
    }
  }
}

// A closed contour around a single high pixel repeats its first point; orientation high reverses.
TEST(TlPreproContours, ClosedContourAroundOnePixel) {
  const Tensor image = from_vector(std::vector<double>{0, 0, 0, 0, 1, 0, 0, 0, 0}, {3, 3});
  const auto low = vision::find_contours(image, 0.5);
  ASSERT_EQ(low.size(), 1u);
  ASSERT_EQ(low[0].size(), 5u);
  EXPECT_EQ(low[0].front(), low[0].back());
  for (const auto& p : low[0]) EXPECT_DOUBLE_EQ(std::abs(p[0] - 1) + std::abs(p[1] - 1), 0.5);
  auto high = vision::find_contours(image, 0.5, vision::ContourSide::low, vision::ContourSide::high);
  std::reverse(high[0].begin(), high[0].end());
  EXPECT_EQ(high[0], low[0]);
  testing::expect_error([] { vision::find_contours(zeros({1, 5}), 0.5); }, {"find_contours", "2 x 2", "[1, 5]"});
}

TEST(TlPreproContours, Pt2MapMatchesTensorLayer) {
  const auto& f = testing::tl_prepro_fixture("contours");
  std::vector<std::vector<vision::ContourPoint>> lists;
  for (int k = 0; f.contains("map_points_" + std::to_string(k)); ++k)
    lists.push_back(testing::tl_prepro_pairs(f.at("map_points_" + std::to_string(k))));
  const auto size = f.at("map_size").to_vector<int64_t>();
  EXPECT_EQ(max_abs_diff(vision::pt2map(lists, size[0], size[1], 0.75), f.at("map")), 0);
  testing::expect_error(
      [] {
        vision::pt2map({{{0, 0}}, {{2, -0.6}}}, 4, 4);
      },
      {"pt2map", "point 0 of list 1", "outside"});
  testing::expect_error([] { vision::pt2map({}, 1 << 20, 1 << 20); }, {"pt2map", "2^31"});
}

}  // namespace
}  // namespace strata
