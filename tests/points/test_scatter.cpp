// scatter_max, voxelize and the approximate earth mover's distance (strata/points/scatter.hpp)
// against brute force written here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
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

// The rows scatter_max takes, by their definition rather than a scan: the first row of a cell
// where its value is NaN, otherwise the first row holding the largest value that is not NaN
// (-0 and +0 equal); -1 where no row goes.
std::vector<int64_t> rows_by_definition(const std::vector<double>& src, const std::vector<int64_t>& index, int64_t c,
                                        int64_t count) {
  std::vector<int64_t> rows(static_cast<size_t>(count * c), -1);
  for (int64_t cell = 0; cell < count; ++cell)
    for (int64_t j = 0; j < c; ++j) {
      std::vector<int64_t> in;
      for (size_t i = 0; i < index.size(); ++i)
        if (index[i] == cell) in.push_back(static_cast<int64_t>(i));
      if (in.empty()) continue;
      if (std::isnan(src[in[0] * c + j])) {
        rows[cell * c + j] = in[0];
        continue;
      }
      double top = -std::numeric_limits<double>::infinity();
      for (int64_t i : in)
        if (!std::isnan(src[i * c + j])) top = std::max(top, src[i * c + j]);
      for (int64_t i : in)
        if (src[i * c + j] == top) {
          rows[cell * c + j] = i;
          break;
        }
    }
  return rows;
}

TEST(PointScatter, ScatterMaxTiesGoToTheFirstRowAndNansOnlyWhereTheyComeFirst) {
  manual_seed(13);
  const int64_t n = 200, c = 3, count = 30;
  std::vector<double> src = round(uniform({n, c}, -2, 2, kFloat64) * 2.0).to_vector<double>();  // ties, -0 and +0
  for (size_t i = 5; i < src.size(); i += 11) src[i] = std::numeric_limits<double>::quiet_NaN();
  std::vector<int64_t> index(n);
  for (int64_t i = 0; i < n; ++i) index[i] = (i * 7 + i / 13) % (count - 3);  // the last 3 cells take none
  const std::vector<int64_t> want = rows_by_definition(src, index, c, count);
  for (DType dtype : {kFloat64, kFloat32}) {
    const Tensor s = cast(from_vector(src, {n, c}), dtype), idx = from_vector(index, {n});
    const std::vector<double> got = cast(scatter_max(s, idx, count), kFloat64).to_vector<double>();
    for (size_t e = 0; e < want.size(); ++e) {
      const double expected = want[e] < 0 ? 0.0 : src[want[e] * c + e % c];
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(got[e])) << "cell " << e / c << " column " << e % c;
      } else {
        EXPECT_EQ(got[e], expected) << "cell " << e / c << " column " << e % c;
        EXPECT_EQ(std::signbit(got[e]), std::signbit(expected)) << "the first of -0 and +0, cell " << e / c;
      }
    }
  }
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
