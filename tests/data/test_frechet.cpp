// frechet_distance (data/frechet.hpp): closed forms where the covariances commute, and the
// properties that hold for any sets (zero on itself, symmetry, invariance under a rotation of
// the feature space), which a wrong matrix square root breaks.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/expect_error.hpp"
#include "strata/strata.hpp"

namespace strata::data {
namespace {

// The four points (+-sx, +-sy) around (cx, cy): mean (cx, cy), covariance exactly
// diag(4 sx^2 / 3, 4 sy^2 / 3) (unbiased, N - 1 = 3).
Tensor cross(double cx, double cy, double sx, double sy) {
  return tensor({cx + sx, cy + sy, cx + sx, cy - sy, cx - sx, cy + sy, cx - sx, cy - sy}, {4, 2});
}

TEST(FrechetTest, ClosedFormForDiagonalCovariances) {
  // |dmu|^2 + sum (sqrt(s_a) - sqrt(s_b))^2 when both covariances are diagonal.
  const double k = 4.0 / 3.0;
  const double want = (1.0 * 1.0 + 2.0 * 2.0) + std::pow(std::sqrt(k * 1) - std::sqrt(k * 9), 2) +
                      std::pow(std::sqrt(k * 4) - std::sqrt(k * 1), 2);
  EXPECT_NEAR(frechet_distance(cross(0, 0, 1, 2), cross(1, -2, 3, 1)), want, 1e-9);
  // One feature: (mu_a - mu_b)^2 + (sd_a - sd_b)^2.
  Tensor a = tensor({1.0, 2.0, 4.0}, {3, 1}), b = tensor({0.0, 10.0}, {2, 1});
  const double sd_a = std::sqrt(((1 - 7.0 / 3) * (1 - 7.0 / 3) + (2 - 7.0 / 3) * (2 - 7.0 / 3) + (4 - 7.0 / 3) * (4 - 7.0 / 3)) / 2);
  const double sd_b = std::sqrt(50.0);
  EXPECT_NEAR(frechet_distance(a, b), std::pow(7.0 / 3 - 5, 2) + std::pow(sd_a - sd_b, 2), 1e-9);
}

TEST(FrechetTest, ZeroOnItselfSymmetricAndRotationInvariant) {
  Generator gen(12);
  // Correlated features, so the two covariances do not commute.
  Tensor mix = randn({4, 4}, kFloat64, &gen);
  Tensor a = matmul(randn({200, 4}, kFloat64, &gen), mix);
  Tensor b = matmul(randn({150, 4}, kFloat64, &gen), randn({4, 4}, kFloat64, &gen)) + 0.5;
  EXPECT_NEAR(frechet_distance(a, a), 0.0, 1e-8);
  const double ab = frechet_distance(a, b);
  EXPECT_GT(ab, 0.1);
  EXPECT_NEAR(frechet_distance(b, a), ab, 1e-8 * ab);
  // An orthogonal map of the feature space (a rotation in the plane of features 0 and 2).
  const double c = std::cos(0.7), s = std::sin(0.7);
  Tensor q = tensor({c, 0.0, -s, 0.0, 0.0, 1.0, 0.0, 0.0, s, 0.0, c, 0.0, 0.0, 0.0, 0.0, 1.0}, {4, 4});
  EXPECT_NEAR(frechet_distance(matmul(a, q), matmul(b, q)), ab, 1e-8 * ab);
}

TEST(FrechetTest, Errors) {
  using strata::testing::expect_error;
  expect_error([] { frechet_distance(zeros({1, 3}), zeros({4, 3})); }, {"frechet_distance", "a", "N >= 2", "[1, 3]"});
  expect_error([] { frechet_distance(zeros({4, 3}), zeros({4, 2})); }, {"frechet_distance", "3 features", "b has 2"});
}

}  // namespace
}  // namespace strata::data
