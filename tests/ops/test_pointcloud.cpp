// The point-cloud ops (strata/ops/pointcloud.hpp) against brute-force float64 references written
// here, and their gradients against finite differences.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include <sys/resource.h>

#include "strata/autograd/gradcheck.hpp"
#include "strata/ops/pairwise_distances.hpp"
#include "strata/ops/pointcloud.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

// Clouds on a coarse grid (so ties in distance happen) plus a little noise in some.
Tensor clouds(int64_t b, int64_t n, uint64_t seed, bool ties = false) {
  Generator gen(seed);
  Tensor x = uniform({b, n, 3}, -1, 1, kFloat64, &gen);
  return ties ? round(x * 2.0) / 2.0 : x;
}

double d2(const std::vector<double>& p, int64_t i, const std::vector<double>& q, int64_t j) {
  double s = 0;
  for (int c = 0; c < 3; ++c) s += (p[i * 3 + c] - q[j * 3 + c]) * (p[i * 3 + c] - q[j * 3 + c]);
  return s;
}

// Large clouds, which the CPU searches through a uniform grid (src/kernels/cpu/point_grid.hpp):
// b clouds of n points, kind "uniform" in [-1, 1]^3, "clustered" (five small blobs and a sparse
// haze), or "lattice" (a 9^3 lattice with about 27 exact duplicates of each site, so distances tie).
Tensor grid_search_cloud(int64_t b, int64_t n, const char* kind, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> unit(-1, 1);
  std::vector<double> xyz(static_cast<size_t>(b * n * 3));
  const std::string k = kind;
  for (size_t i = 0; i < xyz.size(); i += 3) {
    for (int c = 0; c < 3; ++c) xyz[i + c] = unit(gen);
    if (k == "lattice") {
      for (int c = 0; c < 3; ++c) xyz[i + c] = std::round(xyz[i + c] * 4) / 4;
    } else if (k == "clustered" && gen() % 10 != 0) {
      const double centre = static_cast<double>(gen() % 5) * 0.4 - 0.8;
      for (int c = 0; c < 3; ++c) xyz[i + c] = centre + xyz[i + c] * 0.02;
    }
  }
  return from_vector(xyz, {b, n, 3});
}

// The k nearest by (squared distance, index), brute force over the whole cloud, for each query.
std::vector<int64_t> knn_by_brute_force(const Tensor& queries, const Tensor& points, int64_t k) {
  const int64_t B = points.size(0), N = points.size(1), Q = queries.size(1);
  std::vector<int64_t> want;
  for (int64_t b = 0; b < B; ++b) {
    const std::vector<double> p = points.narrow(0, b, 1).to_vector<double>(), q = queries.narrow(0, b, 1).to_vector<double>();
    std::vector<std::pair<double, int64_t>> by_distance(static_cast<size_t>(N));
    for (int64_t j = 0; j < Q; ++j) {
      for (int64_t n = 0; n < N; ++n) by_distance[n] = {d2(p, n, q, j), n};
      std::partial_sort(by_distance.begin(), by_distance.begin() + k, by_distance.end());
      for (int64_t i = 0; i < k; ++i) want.push_back(by_distance[i].second);
    }
  }
  return want;
}

// The ball query's definition: the first `samples` points in index order with distance < radius,
// padded with the first, all 0 when none.
std::vector<int64_t> ball_by_brute_force(const Tensor& queries, const Tensor& points, double radius, int64_t samples) {
  const int64_t B = points.size(0), N = points.size(1), Q = queries.size(1);
  std::vector<int64_t> want;
  for (int64_t b = 0; b < B; ++b) {
    const std::vector<double> p = points.narrow(0, b, 1).to_vector<double>(), q = queries.narrow(0, b, 1).to_vector<double>();
    for (int64_t j = 0; j < Q; ++j) {
      std::vector<int64_t> inside;
      for (int64_t n = 0; n < N && static_cast<int64_t>(inside.size()) < samples; ++n)
        if (d2(p, n, q, j) < radius * radius) inside.push_back(n);
      std::vector<int64_t> row(samples, inside.empty() ? 0 : inside[0]);
      std::copy(inside.begin(), inside.end(), row.begin());
      want.insert(want.end(), row.begin(), row.end());
    }
  }
  return want;
}

// The largest this process has been, in MiB.
double grid_search_peak_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024;
}

TEST(PointCloudOps, FarthestPointSamplingPicksTheFarthestEachTime) {
  const Tensor pts = clouds(3, 200, 1);
  const Tensor idx = farthest_point_sample(pts, 40);
  ASSERT_EQ(idx.shape(), (Shape{3, 40}));
  const std::vector<int64_t> got = idx.to_vector<int64_t>();
  for (int64_t b = 0; b < 3; ++b) {
    const std::vector<double> p = pts.narrow(0, b, 1).to_vector<double>();
    std::vector<int64_t> chosen{0};
    std::vector<double> nearest(200, std::numeric_limits<double>::infinity());
    for (int64_t i = 1; i < 40; ++i) {  // the reference: recompute every distance each step
      int64_t best = 0;
      for (int64_t n = 0; n < 200; ++n) {
        double m = std::numeric_limits<double>::infinity();
        for (int64_t c : chosen) m = std::min(m, d2(p, n, p, c));
        nearest[n] = m;
        if (m > nearest[best]) best = n;
      }
      chosen.push_back(best);
    }
    EXPECT_EQ(std::vector<int64_t>(got.begin() + b * 40, got.begin() + (b + 1) * 40), chosen) << "cloud " << b;
  }
  EXPECT_THROW(farthest_point_sample(pts, 201), Error);
  EXPECT_THROW(farthest_point_sample(pts.reshape({600, 3}), 2), Error);
}

TEST(PointCloudOps, KnnFindsTheNearestInOrderWithTiesToTheLowerIndex) {
  const Tensor pts = clouds(2, 150, 2, true), queries = clouds(2, 30, 3, true);
  const int64_t k = 7;
  const std::vector<int64_t> got = knn(queries, pts, k).to_vector<int64_t>();
  for (int64_t b = 0; b < 2; ++b) {
    const std::vector<double> p = pts.narrow(0, b, 1).to_vector<double>(), q = queries.narrow(0, b, 1).to_vector<double>();
    for (int64_t j = 0; j < 30; ++j) {
      std::vector<int64_t> order(150);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return d2(p, x, q, j) < d2(p, y, q, j); });
      for (int64_t i = 0; i < k; ++i) ASSERT_EQ(got[(b * 30 + j) * k + i], order[i]) << "cloud " << b << " query " << j;
    }
  }
  // float32 clouds give the same neighbours as their float64 values
  EXPECT_EQ(knn(cast(queries, kFloat32), cast(pts, kFloat32), k).to_vector<int64_t>(), got);
}

// Points whose float32 squared distance overflows to infinity are never near (the two-pass
// selection's bound leaves them out, as the insertion pass does): the neighbours are float64's.
TEST(PointCloudOps, KnnNeverTakesPointsWhoseDistanceOverflows) {
  std::vector<double> values = grid_search_cloud(2, 300, "uniform", 31).to_vector<double>();
  for (int64_t i : {3, 40, 41, 299, 300, 450}) values[i * 3 + 1] = 1e20;
  const Tensor pts = from_vector(values, {2, 300, 3}), queries = pts.narrow(1, 100, 50).contiguous();
  const std::vector<int64_t> want = knn_by_brute_force(queries, pts, 16);
  EXPECT_EQ(knn(queries, pts, 16).to_vector<int64_t>(), want);
  EXPECT_EQ(knn(cast(queries, kFloat32), cast(pts, kFloat32), 16).to_vector<int64_t>(), want);
}

// float32 3-D clouds take the CPU's fused selection (k up to 32, 64 points or more): cloud sizes
// around its rows of 32 and blocks of 1,024, k across its range, and clouds whose float32
// distances are exact (coordinates in 1/64ths), so the float64 brute force is the reference tie
// for tie: distinct-ish points, a coarse lattice (ties and duplicates everywhere, more candidates
// than the rank count takes) and clusters around a few spots.
TEST(PointCloudOps, Float32KnnOfEverySizeMatchesTheBruteForce) {
  std::mt19937_64 gen(41);
  std::uniform_real_distribution<double> unit(-1, 1);
  for (const char* kind : {"fine", "lattice", "clustered"})
    for (int64_t n : {64, 95, 97, 1024, 1040, 2100}) {
      std::vector<double> xyz(static_cast<size_t>(2 * n * 3));
      for (size_t i = 0; i < xyz.size(); i += 3)
        for (int c = 0; c < 3; ++c) {
          const double v = unit(gen);
          if (std::string(kind) == "fine")
            xyz[i + c] = std::round(v * 64) / 64;
          else if (std::string(kind) == "lattice")
            xyz[i + c] = std::round(v * 2) / 2;
          else
            xyz[i + c] = (i / 3) % 4 == 0 ? std::round(v * 64) / 64 : 0.25 * c + std::round(v * 2) / 64;
        }
      const Tensor pts = from_vector(xyz, {2, n, 3}), queries = pts.narrow(1, n / 3, 40) * 1.0;
      for (int64_t k : {1, 2, 16, 31, 32}) {
        const std::vector<int64_t> got = knn(cast(queries, kFloat32), cast(pts, kFloat32), k).to_vector<int64_t>();
        EXPECT_EQ(got, knn_by_brute_force(queries, pts, k)) << kind << " n " << n << " k " << k;
      }
    }
}

TEST(PointCloudOps, BallQueryTakesPointsInIndexOrderAndPadsWithTheFirst) {
  const Tensor pts = clouds(2, 120, 4), queries = clouds(2, 25, 5);
  const double radius = 0.45;
  const int64_t samples = 6;
  const std::vector<int64_t> got = ball_query(queries, pts, radius, samples).to_vector<int64_t>();
  int64_t padded = 0, empty = 0;
  for (int64_t b = 0; b < 2; ++b) {
    const std::vector<double> p = pts.narrow(0, b, 1).to_vector<double>(), q = queries.narrow(0, b, 1).to_vector<double>();
    for (int64_t j = 0; j < 25; ++j) {
      std::vector<int64_t> inside;
      for (int64_t n = 0; n < 120 && static_cast<int64_t>(inside.size()) < samples; ++n)
        if (d2(p, n, q, j) < radius * radius) inside.push_back(n);
      std::vector<int64_t> want(samples, inside.empty() ? 0 : inside[0]);
      std::copy(inside.begin(), inside.end(), want.begin());
      padded += !inside.empty() && static_cast<int64_t>(inside.size()) < samples;
      empty += inside.empty();
      const auto row = got.begin() + (b * 25 + j) * samples;
      EXPECT_EQ(std::vector<int64_t>(row, row + samples), want) << "cloud " << b << " query " << j;
    }
  }
  EXPECT_GT(padded, 0) << "the case should include queries with fewer points than samples";
  EXPECT_THROW(ball_query(queries, pts, -1, 4), Error);
}

TEST(PointCloudOps, GroupPointsGathersPerCloudAndItsGradientAddsUp) {
  const Tensor feats = clouds(2, 10, 6);
  const Tensor idx = from_vector(std::vector<int64_t>{0, 3, 3, 9, 1, 1, 1, 2}, {2, 2, 2});
  const std::vector<double> got = group_points(feats, idx).to_vector<double>(), f = feats.to_vector<double>();
  const std::vector<int64_t> ids = idx.to_vector<int64_t>();
  for (int64_t e = 0; e < 8; ++e)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(got[e * 3 + c], f[(e / 4 * 10 + ids[e]) * 3 + c]);
  const auto r = autograd::gradcheck([&](const std::vector<Tensor>& in) { return group_points(in[0], idx); },
                                     {feats.clone().requires_grad_()});
  EXPECT_TRUE(r.ok) << r.message;
  EXPECT_THROW(group_points(feats, from_vector(std::vector<int64_t>{0, 10}, {1, 2}).expand({2, 2})), Error);
}

TEST(PointCloudOps, ThreeInterpolateWeighsTheThreeNearestByInverseDistance) {
  const Tensor known = clouds(1, 12, 7), unknown = clouds(1, 5, 8);
  Generator gen(9);
  const Tensor feats = uniform({1, 12, 4}, -1, 1, kFloat64, &gen);
  const std::vector<double> got = three_interpolate(feats, known, unknown).to_vector<double>();
  const std::vector<double> k = known.to_vector<double>(), u = unknown.to_vector<double>(), f = feats.to_vector<double>();
  for (int64_t j = 0; j < 5; ++j) {
    std::vector<int64_t> order(12);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return d2(k, a, u, j) < d2(k, b, u, j); });
    double w[3], total = 0;
    for (int i = 0; i < 3; ++i) total += w[i] = 1 / (std::sqrt(d2(k, order[i], u, j)) + 1e-8);
    for (int c = 0; c < 4; ++c) {
      double want = 0;
      for (int i = 0; i < 3; ++i) want += w[i] / total * f[order[i] * 4 + c];
      EXPECT_NEAR(got[j * 4 + c], want, 1e-12);
    }
  }
  const auto r = autograd::gradcheck(
      [&](const std::vector<Tensor>& in) { return three_interpolate(in[0], known, unknown); },
      {feats.clone().requires_grad_()});
  EXPECT_TRUE(r.ok) << r.message;
}

TEST(PointCloudOps, ChamferDistanceMatchesTheDefinitionAndItsGradient) {
  const Tensor a = clouds(2, 9, 10), b = clouds(2, 7, 11);
  const std::vector<double> got = chamfer_distance(a, b).to_vector<double>();
  for (int64_t s = 0; s < 2; ++s) {
    const std::vector<double> p = a.narrow(0, s, 1).to_vector<double>(), q = b.narrow(0, s, 1).to_vector<double>();
    double ab = 0, ba = 0;
    for (int64_t i = 0; i < 9; ++i) {
      double m = std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < 7; ++j) m = std::min(m, d2(p, i, q, j));
      ab += m / 9;
    }
    for (int64_t j = 0; j < 7; ++j) {
      double m = std::numeric_limits<double>::infinity();
      for (int64_t i = 0; i < 9; ++i) m = std::min(m, d2(p, i, q, j));
      ba += m / 7;
    }
    EXPECT_NEAR(got[s], ab + ba, 1e-12);
  }
  const auto r = autograd::gradcheck([](const std::vector<Tensor>& in) { return chamfer_distance(in[0], in[1]); },
                                     {a.clone().requires_grad_(), b.clone().requires_grad_()});
  EXPECT_TRUE(r.ok) << r.message;
  EXPECT_NEAR(chamfer_distance(a, a).sum().item<double>(), 0, 1e-12);
}

TEST(PointCloudOps, PairwiseSquaredDistancesAreEveryPairsAndNeverNegative) {
  const Tensor a = clouds(2, 5, 12), b = clouds(2, 4, 13);
  const std::vector<double> got = pairwise_squared_distances(a, b).to_vector<double>();
  for (int64_t s = 0; s < 2; ++s) {
    const std::vector<double> p = a.narrow(0, s, 1).to_vector<double>(), q = b.narrow(0, s, 1).to_vector<double>();
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t j = 0; j < 4; ++j) EXPECT_NEAR(got[static_cast<size_t>((s * 5 + i) * 4 + j)], d2(p, i, q, j), 1e-12);
  }
  // A point against itself: |a|^2 + |a|^2 - 2 a.a rounds to a tiny negative without the clamp.
  const Tensor far = a * 1e4;
  EXPECT_GE(amin(pairwise_squared_distances(far, far)).item<double>(), 0.0);
  const auto r =
      autograd::gradcheck([](const std::vector<Tensor>& in) { return pairwise_squared_distances(in[0], in[1]); },
                          {a.clone().requires_grad_(), b.clone().requires_grad_()});
  EXPECT_TRUE(r.ok) << r.message;
}

// The searches on the meta device give their shapes (and int64) without data.
TEST(PointCloudOps, SearchesOnMetaTensorsGiveTheirShapes) {
  const Tensor points = Tensor::empty({4, 100, 3}, kFloat32, kMeta);
  const Tensor queries = Tensor::empty({4, 10, 3}, kFloat32, kMeta);
  for (const Tensor& idx : {farthest_point_sample(points, 16), knn(queries, points, 5),
                            ball_query(queries, points, 0.2, 8)})
    EXPECT_TRUE(idx.is_meta() && idx.dtype() == kInt64);
  EXPECT_EQ(farthest_point_sample(points, 16).shape(), (Shape{4, 16}));
  EXPECT_EQ(knn(queries, points, 5).shape(), (Shape{4, 10, 5}));
  EXPECT_EQ(ball_query(queries, points, 0.2, 8).shape(), (Shape{4, 10, 8}));
  EXPECT_THROW(knn(queries, points, 101), Error);  // the arguments are checked as on the CPU
}

// Hostile clouds: a NaN or infinite coordinate is refused by name, not searched past.
TEST(PointCloudOps, SearchesRefuseNanAndInfiniteCoordinates) {
  Tensor bad = uniform({2, 8, 3}, -1, 1);
  bad.data<float>()[13] = std::numeric_limits<float>::quiet_NaN();
  const Tensor good = uniform({2, 4, 3}, -1, 1);
  EXPECT_THROW(farthest_point_sample(bad, 4), Error);
  EXPECT_THROW(knn(good, bad, 2), Error);
  EXPECT_THROW(ball_query(bad, good, 0.5, 2), Error);
  bad.data<float>()[13] = std::numeric_limits<float>::infinity();
  EXPECT_THROW(farthest_point_sample(bad, 4), Error);
}

// docs/pointclouds.md's example: sampled centres, their neighbourhoods, a Chamfer distance.
TEST(PointCloudOps, TheDocsExampleGivesTheShapesItSays) {
  const Tensor xyz = uniform({16, 1024, 3}, -1, 1);
  const Tensor centres = squeeze(group_points(xyz, unsqueeze(farthest_point_sample(xyz, 512), -1)), 2);
  EXPECT_EQ(centres.shape(), (Shape{16, 512, 3}));
  EXPECT_EQ(group_points(xyz, ball_query(centres, xyz, 0.2, 32)).shape(), (Shape{16, 512, 32, 3}));
  const double loss = mean(chamfer_distance(centres, xyz)).item<double>();
  EXPECT_GT(loss, 0);  // 512 of 1,024 points: the other half is not in the centres
  EXPECT_LT(loss, 0.05);
}

// The grid path on 20,000-point clouds gives the brute force's indices: uniform, clustered and
// lattice clouds (exact ties and duplicates), queries inside and outside the cloud's box.
TEST(PointCloudOps, GridKnnOnLargeCloudsMatchesTheBruteForce) {
  for (const char* kind : {"uniform", "clustered", "lattice"}) {
    const Tensor pts = grid_search_cloud(2, 20000, kind, 21);
    const Tensor queries = std::string(kind) == "lattice" ? grid_search_cloud(2, 100, kind, 22) * 1.5
                                                          : pts.narrow(1, 0, 100) * 1.2;
    for (int64_t k : {1, 16}) {
      const std::vector<int64_t> got = knn(queries, pts, k).to_vector<int64_t>();
      EXPECT_EQ(got, knn_by_brute_force(queries, pts, k)) << kind << " k " << k;
      if (std::string(kind) == "lattice")  // exact in float32 too, ties and all
        EXPECT_EQ(knn(cast(queries, kFloat32), cast(pts, kFloat32), k).to_vector<int64_t>(), got) << "k " << k;
    }
  }
}

TEST(PointCloudOps, GridBallQueryOnLargeCloudsTakesTheLowestIndicesWithin) {
  for (const char* kind : {"uniform", "clustered", "lattice"}) {
    const Tensor pts = grid_search_cloud(2, 20000, kind, 23);
    const Tensor queries = grid_search_cloud(2, 100, "uniform", 24) * 1.2;
    for (double radius : {0.03, 0.15, 0.3}) {
      const std::vector<int64_t> got = ball_query(queries, pts, radius, 32).to_vector<int64_t>();
      EXPECT_EQ(got, ball_by_brute_force(queries, pts, radius, 32)) << kind << " radius " << radius;
      if (std::string(kind) == "lattice")
        EXPECT_EQ(ball_query(cast(queries, kFloat32), cast(pts, kFloat32), radius, 32).to_vector<int64_t>(), got);
    }
  }
}

// Degenerate clouds: every point at one spot, points on a line, and a small cloud with a few
// points 1e30 away (a grid of cells the size of the cloud would be astronomically large).
TEST(PointCloudOps, GridSearchesOnDegenerateCloudsStayExactAndSmall) {
  const double peak_before = grid_search_peak_mib();
  const Tensor same = full({1, 10000, 3}, 0.25, kFloat64), at_it = full({1, 80, 3}, 0.25, kFloat64);
  std::vector<int64_t> first(80 * 8);
  for (size_t i = 0; i < first.size(); ++i) first[i] = static_cast<int64_t>(i % 8);
  EXPECT_EQ(knn(at_it, same, 8).to_vector<int64_t>(), first);
  EXPECT_EQ(ball_query(at_it, same, 0.1, 8).to_vector<int64_t>(), first);

  std::vector<double> line(3 * 12000, 0.0), far = grid_search_cloud(1, 12000, "uniform", 25).to_vector<double>();
  for (int64_t i = 0; i < 12000; ++i) line[i * 3] = static_cast<double>((i * 7919) % 12000) * 1e-3;
  for (int64_t i : {5, 6000, 11999}) far[i * 3] = far[i * 3 + 1] = (i % 2 ? 1e30 : -1e30);
  for (const Tensor& pts : {from_vector(line, {1, 12000, 3}), from_vector(far, {1, 12000, 3})}) {
    const Tensor queries = pts.narrow(1, 0, 100) * 1.01;
    EXPECT_EQ(knn(queries, pts, 10).to_vector<int64_t>(), knn_by_brute_force(queries, pts, 10));
    EXPECT_EQ(ball_query(queries, pts, 0.05, 10).to_vector<int64_t>(), ball_by_brute_force(queries, pts, 0.05, 10));
  }
  EXPECT_LT(grid_search_peak_mib() - peak_before, 64) << "the grids should take O(N) memory";
}

}  // namespace
}  // namespace strata
