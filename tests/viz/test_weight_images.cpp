// Weights as pictures (viz/weight_images.hpp): each filter or unit stretched by its own range.
#include <gtest/gtest.h>

#include <cmath>

#include "strata/core/factory.hpp"
#include "strata/viz/weight_images.hpp"
#include "support/expect_error.hpp"

using namespace strata;
using strata::testing::expect_error;

namespace {

TEST(WeightImagesTest, EachFilterStretchedByItsOwnRange) {
  // W [2, 2, 1, 3]: filter 0 = 0..3, filter 1 = 10 x (3..0), filter 2 constant
  std::vector<float> w(12);
  for (int64_t y = 0; y < 2; ++y)
    for (int64_t x = 0; x < 2; ++x) {
      const int64_t k = y * 2 + x;
      w[k * 3 + 0] = static_cast<float>(k);
      w[k * 3 + 1] = static_cast<float>(10 * (3 - k));
      w[k * 3 + 2] = 7.0f;
    }
  const Tensor grid = viz::filter_grid(from_vector(w, {2, 2, 1, 3}), 1);
  ASSERT_EQ(grid.shape(), Shape({5, 5, 1}));  // a 2 x 2 grid of 2 x 2 images, 1 pixel apart
  const auto g = grid.to_vector<uint8_t>();
  auto at = [&](int64_t y, int64_t x) { return static_cast<int>(g[static_cast<size_t>(y * 5 + x)]); };
  EXPECT_EQ(at(0, 0), 0);
  EXPECT_EQ(at(0, 1), 85);
  EXPECT_EQ(at(1, 0), 170);
  EXPECT_EQ(at(1, 1), 255);
  EXPECT_EQ(at(0, 3), 255);  // filter 1, reversed
  EXPECT_EQ(at(1, 4), 0);
  EXPECT_EQ(at(3, 0), 128);  // the constant filter: mid-grey
  EXPECT_EQ(at(0, 2), 0);    // the gap
  EXPECT_EQ(at(3, 3), 0);    // the empty fourth cell
}

TEST(WeightImagesTest, ColourFiltersAndUnitColumns) {
  const Tensor rgb = viz::filter_grid(arange(0, 24, 1, kFloat32).reshape({2, 2, 3, 2}), 0);
  EXPECT_EQ(rgb.shape(), Shape({2, 4, 3}));
  // W [4, 3]: three units of a 2 x 2 input; scaling a column does not change its picture
  std::vector<float> w = {1, -2, 5, 2, -4, 5, 3, -6, 5, 4, -8, 5};
  const Tensor a = viz::weight_images(from_vector(w, {4, 3}), {2, 2}, 400, 0);
  ASSERT_EQ(a.shape(), Shape({4, 4, 1}));  // a 2 x 2 grid, the fourth cell empty
  const auto px = a.to_vector<uint8_t>();
  EXPECT_EQ(px[0], 0);    // unit 0: 1, 2, 3, 4
  EXPECT_EQ(px[5], 255);  // its last value at (1, 1)
  EXPECT_EQ(px[2], 255);  // unit 1: -2, -4, -6, -8, its first value the largest
  EXPECT_EQ(px[8], 128);  // unit 2: constant
  const Tensor first_two = viz::weight_images(from_vector(w, {4, 3}), {2, 2}, 2, 0);
  EXPECT_EQ(first_two.shape(), Shape({2, 4, 1}));
}

TEST(WeightImagesTest, RefusesWhatIsNoPicture) {
  expect_error([&] { viz::filter_grid(zeros({3, 3, 2, 4})); }, {"2 input channels", "narrow(2, c, 1)"});
  expect_error([&] { viz::filter_grid(zeros({3, 3, 4})); }, {"[kh, kw, in, out]"});
  expect_error([&] { viz::weight_images(zeros({784, 10}), {27, 28}); }, {"height · width = 784"});
  const Tensor nan = from_vector(std::vector<float>{0, 1, std::nanf(""), 2}, {4, 1});
  expect_error([&] { viz::weight_images(nan, {2, 2}); }, {"NaN"});
}

}  // namespace
