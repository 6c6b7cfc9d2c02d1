// Elastic transform: identity at alpha 0, seeded, values a convex mix of the input, and the
// displacement really smooth (neighbouring pixels move alike).
#include <gtest/gtest.h>

#include <cmath>

#include "support/max_abs_diff.hpp"
#include "strata/vision/elastic.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/shape.hpp"

using namespace strata;
using namespace strata::vision;

namespace {

Tensor gradient_image(int64_t h, int64_t w) {  // value = column: shows horizontal displacement
  std::vector<double> v;
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) v.push_back(static_cast<double>(x));
  return from_vector(v, {h, w, 1});
}

}  // namespace

TEST(Elastic, AlphaZeroReturnsTheImage) {
  Generator data(31), gen(1);
  for (DType t : {kFloat64, kFloat32, kUInt8}) {
    Tensor img = (rand({12, 10, 3}, kFloat64, &data) * 200.0).to(t);
    EXPECT_EQ(max_abs_diff(elastic_transform(img, 0, 4, gen), img), 0);
    EXPECT_EQ(max_abs_diff(elastic_transform(img, 0, 4, gen, Interpolation::nearest), img), 0);
  }
}

TEST(Elastic, SeededAndWithinTheInputRange) {
  Generator data(32);
  Tensor img = rand({20, 16, 2}, kFloat32, &data) * 0.8 + 0.1;  // in [0.1, 0.9]
  Generator g1(7), g2(7), g3(8);
  Tensor a = elastic_transform(img, 8, 3, g1, Interpolation::bilinear, 0.5);
  EXPECT_EQ(max_abs_diff(a, elastic_transform(img, 8, 3, g2, Interpolation::bilinear, 0.5)), 0);
  EXPECT_GT(max_abs_diff(a, elastic_transform(img, 8, 3, g3, Interpolation::bilinear, 0.5)), 1e-3);
  EXPECT_GT(max_abs_diff(a, img), 1e-3);  // it did move something
  for (float v : a.to_vector<float>()) {
    EXPECT_GE(v, 0.1f - 1e-6f);
    EXPECT_LE(v, 0.9f + 1e-6f);
  }
  Tensor u8 = elastic_transform((img * 255.0).to(kUInt8), 8, 3, g1);
  EXPECT_EQ(u8.dtype(), kUInt8);
  EXPECT_THROW(elastic_transform(img, 1, -1, g1), Error);
  EXPECT_THROW(elastic_transform(zeros({4, 4}), 1, 1, g1), Error);
}

TEST(Elastic, DisplacementIsSmoothAndScaledByAlpha) {
  // On an image whose value is its column, the output minus the column is the horizontal
  // displacement (where it stays inside). A large sigma makes neighbours move alike; the
  // displacement grows with alpha.
  Tensor img = gradient_image(40, 40);
  auto displacement = [&](double alpha, double sigma) {
    Generator gen(9);
    std::vector<double> out = elastic_transform(img, alpha, sigma, gen, Interpolation::bilinear, -1000).to_vector<double>();
    double largest = 0, step = 0;
    for (int64_t y = 10; y < 30; ++y)
      for (int64_t x = 10; x < 29; ++x) {
        const double d = out[y * 40 + x] - x, next = out[y * 40 + x + 1] - (x + 1);
        largest = std::max(largest, std::abs(d));
        step = std::max(step, std::abs(next - d));
      }
    return std::pair{largest, step};
  };
  const auto [small_alpha, small_step] = displacement(10, 4);
  const auto [big_alpha, big_step] = displacement(40, 4);
  EXPECT_NEAR(big_alpha, 4 * small_alpha, 1e-6 + 0.05 * big_alpha);  // same seed: the same field, 4x
  EXPECT_LT(small_step, 0.5 * small_alpha);                           // neighbours move alike
  const auto [rough_alpha, rough_step] = displacement(10, 0);
  EXPECT_GT(rough_step, 0.5 * rough_alpha);  // unsmoothed noise: neighbours are unrelated
}

TEST(Elastic, EachImageOfABatchGetsItsOwnField) {
  Generator data(33);
  Tensor img = rand({10, 10, 1}, kFloat64, &data);
  Tensor batch = stack({img, img}, 0);
  Generator g1(4), g2(4);
  Tensor out = elastic_transform(batch, 5, 2, g1);
  EXPECT_EQ(max_abs_diff(select(out, 0, 0), elastic_transform(img, 5, 2, g2)), 0);
  EXPECT_GT(max_abs_diff(select(out, 0, 0), select(out, 0, 1)), 1e-3);
}
