// scatter_max, voxelize and the approximate earth mover's distance (strata/points/scatter.hpp)
// against brute force written here.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "strata/strata.hpp"
#include "strata/points/scatter.hpp"

namespace strata::points {
namespace scatter_test {

TEST(PointScatter, ScatterMaxTakesEachCellsMaximumAndSendsTheGradientThere) {
  const Tensor src = from_vector<double>({1, 5, 4, 2, 3, 3, -1, -2}, {4, 2}).requires_grad_();
  const Tensor index = from_vector<int64_t>({2, 0, 2, 0}, {4});
  const Tensor out = scatter_max(src, index, 3);
  // Cell 0 takes rows 1 and 3: max(4, -1), max(2, -2); cell 1 none; cell 2 rows 0 and 2:
  // max(1, 3), max(5, 3).
  EXPECT_EQ(out.to_vector<double>(), (std::vector<double>{4, 2, 0, 0, 3, 5}));
  sum(out * from_vector<double>({1, 2, 3, 4, 5, 6}, {3, 2})).backward();
  // Each cell's gradient lands on the row that held its maximum.
  EXPECT_EQ(src.grad().to_vector<double>(), (std::vector<double>{0, 6, 1, 2, 5, 0, 0, 0}));
  EXPECT_THROW(scatter_max(src, from_vector<int64_t>({0, 3, 0, 0}, {4}), 3), Error);
}

TEST(PointScatter, VoxelizeNumbersCellsByFirstAppearance) {
  const Tensor pts = from_vector<float>({0.05f, 0.05f, 0.05f, 7, 0.15f, 0.02f, 0.01f, 8, -0.05f, 0.0f, 0.0f, 9,
                                         0.09f, 0.01f, 0.09f, 10},
                                        {4, 4});
  const Voxels v = voxelize(pts, 0.1);
  EXPECT_EQ(v.point_voxel.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 0}));
  EXPECT_EQ(v.coordinates.to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 0, 1, 0, 0, -1, 0, 0}));
  EXPECT_EQ(v.counts.to_vector<int64_t>(), (std::vector<int64_t>{2, 1, 1}));
  // The mean feature per voxel from the pieces.
  const Tensor features = pts.narrow(1, 3, 1).contiguous();
  EXPECT_EQ(scatter_max(features, v.point_voxel, 3).to_vector<float>(), (std::vector<float>{10, 8, 9}));
  EXPECT_THROW(voxelize(from_vector<float>({1e30f, 0, 0}, {1, 3}), 0.1), Error);
  EXPECT_THROW(voxelize(pts, 0), Error);
}

// The exact distance by trying every matching (N! of them; N is small).
double exact_emd(const std::vector<double>& a, const std::vector<double>& b, int n) {
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  double best = 1e30;
  do {
    double total = 0;
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < 3; ++c) total += (a[i * 3 + c] - b[order[i] * 3 + c]) * (a[i * 3 + c] - b[order[i] * 3 + c]);
    best = std::min(best, total / n);
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

TEST(PointScatter, EarthMoversDistanceApproachesTheBestMatching) {
  manual_seed(11);
  const int n = 6;
  const Tensor a = uniform({2, n, 3}, -1, 1, kFloat64), b = uniform({2, n, 3}, -1, 1, kFloat64);
  const std::vector<double> got = earth_movers_distance(a, b, 0.002, 500).to_vector<double>();
  for (int64_t k = 0; k < 2; ++k) {
    const double exact = exact_emd(a.narrow(0, k, 1).contiguous().to_vector<double>(),
                                   b.narrow(0, k, 1).contiguous().to_vector<double>(), n);
    EXPECT_NEAR(got[k], exact, 0.02 * exact) << "cloud " << k;
  }
  // A cloud against a reordering of itself is at distance 0; the Chamfer distance cannot tell
  // a cloud from one whose points all crowd on one of its points, the matching can.
  EXPECT_NEAR(earth_movers_distance(a, flip(a, {1}), 0.002, 500).to_vector<double>()[0], 0.0, 1e-3);
}

TEST(PointScatter, EarthMoversDistanceGradientMovesPointsOntoTheTarget) {
  manual_seed(12);
  const Tensor target = uniform({1, 32, 3}, -1, 1);
  Tensor moving = uniform({1, 32, 3}, -1, 1).requires_grad_();
  const double start = earth_movers_distance(moving, target).item<double>();
  for (int step = 0; step < 60; ++step) {
    moving.zero_grad();
    earth_movers_distance(moving, target).backward();
    NoGradGuard no_grad;
    add_(moving, moving.grad(), -8.0);  // the gradient is 2/N of each point's offset
  }
  EXPECT_LT(earth_movers_distance(moving, target).item<double>(), 0.05 * start);
}

}  // namespace scatter_test
}  // namespace strata::points
