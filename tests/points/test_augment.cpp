// Point-cloud augmentation (strata/points/augment.hpp): rigid motions stay rigid, SO(3) draws
// are spread, labels follow their points, normalisation lands on the unit sphere, seeds repeat.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "strata/core/factory.hpp"
#include "strata/data/dataset.hpp"
#include "strata/points/augment.hpp"

namespace strata::points {
namespace augment_test {

// A random cloud [p, 6]: points, then unit normals.
Tensor cloud_with_normals(int64_t p, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> v;
  for (int64_t i = 0; i < p; ++i) {
    float n[3] = {normal(rng), normal(rng), normal(rng)};
    const float len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    v.insert(v.end(), {normal(rng), normal(rng), normal(rng), n[0] / len, n[1] / len, n[2] / len});
  }
  return from_vector(v, {p, 6});
}

double distance(const std::vector<float>& v, int64_t cols, int64_t i, int64_t j, int64_t at = 0) {
  double sq = 0;
  for (int64_t k = at; k < at + 3; ++k) sq += (v[i * cols + k] - v[j * cols + k]) * (v[i * cols + k] - v[j * cols + k]);
  return std::sqrt(sq);
}

double determinant(const Rotation& r) {
  return r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) + r[2] * (r[3] * r[7] - r[4] * r[6]);
}

// Norms, pairwise distances and the angle between each point and its normal are kept.
void expect_rigid(const Tensor& before, const Tensor& after) {
  const std::vector<float> a = before.to_vector<float>(), b = after.to_vector<float>();
  const int64_t p = before.size(0);
  for (int64_t i = 0; i < p; ++i) {
    double na = 0, nb = 0, dot_a = 0, dot_b = 0;
    for (int k = 0; k < 3; ++k) {
      na += a[i * 6 + k] * a[i * 6 + k], nb += b[i * 6 + k] * b[i * 6 + k];
      dot_a += a[i * 6 + k] * a[i * 6 + 3 + k], dot_b += b[i * 6 + k] * b[i * 6 + 3 + k];
    }
    EXPECT_NEAR(std::sqrt(na), std::sqrt(nb), 1e-5);
    EXPECT_NEAR(dot_a, dot_b, 1e-4) << "the normal turned with its point";
    for (int64_t j = i + 1; j < p; ++j) EXPECT_NEAR(distance(a, 6, i, j), distance(b, 6, i, j), 1e-5);
  }
}

TEST(PointAugmentRotation, AxisRotationsAreProperAndTurnTheRightWay) {
  for (int axis = 0; axis < 3; ++axis) EXPECT_NEAR(determinant(axis_rotation(0.7, axis)), 1.0, 1e-12);
  // A quarter turn about y takes z to x (right-handed), and leaves y where it is.
  const Tensor turned = rotate(tensor({0.0f, 0.0f, 1.0f, 0.0f, 2.0f, 0.0f}, {2, 3}), axis_rotation(std::numbers::pi / 2, 1));
  const std::vector<float> v = turned.to_vector<float>();
  const std::vector<float> expected{1, 0, 0, 0, 2, 0};
  for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(v[i], expected[i], 1e-6);
  EXPECT_THROW(axis_rotation(0.1, 3), Error);
}

TEST(PointAugmentRotation, RandomRotationsKeepNormsDistancesAndNormals) {
  const Tensor cloud = cloud_with_normals(20, 1);
  std::mt19937_64 rng(2);
  expect_rigid(cloud, random_rotate(cloud, rng, true));
  const Tensor upright = random_rotate_about_axis(cloud, rng, 1, true);
  expect_rigid(cloud, upright);
  const std::vector<float> a = cloud.to_vector<float>(), b = upright.to_vector<float>();
  for (size_t i = 0; i < a.size(); i += 6) EXPECT_FLOAT_EQ(a[i + 1], b[i + 1]) << "y is the axis";
  for (int i = 0; i < 50; ++i) EXPECT_NEAR(determinant(random_rotation(rng)), 1.0, 1e-9);
}

TEST(PointAugmentRotation, SO3SamplesAreSpreadOverTheSphere) {
  // A uniform rotation sends a fixed unit vector to a uniform point of the sphere: the mean of
  // n of them is about N(0, 1 / (3n)) per coordinate, and each coordinate's square averages 1/3.
  std::mt19937_64 rng(3);
  constexpr int n = 20000;
  double mean[3] = {0, 0, 0}, square[3] = {0, 0, 0};
  for (int i = 0; i < n; ++i) {
    const Rotation r = random_rotation(rng);
    for (int k = 0; k < 3; ++k) mean[k] += r[k * 3 + 2] / n, square[k] += r[k * 3 + 2] * r[k * 3 + 2] / n;
  }
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(mean[k], 0.0, 0.02);  // 5 standard deviations
    EXPECT_NEAR(square[k], 1.0 / 3, 0.015);
  }
}

TEST(PointAugmentScale, AnisotropicScalingKeepsNormalsNormal) {
  // Points on the plane x + y + z = 0 with its normal: scaled, the normal must stay
  // perpendicular to the differences between points (the scaled plane).
  std::vector<float> v;
  const float n = 1 / std::sqrt(3.0f);
  for (float a : {0.0f, 1.0f, -2.0f}) v.insert(v.end(), {a, 1.0f, -a - 1.0f, n, n, n});
  std::mt19937_64 rng(4);
  const std::vector<float> s = random_scale(from_vector(v, {3, 6}), rng, 0.5, 2, true).to_vector<float>();
  for (int i = 1; i < 3; ++i) {
    double dot = 0, len = 0;
    for (int k = 0; k < 3; ++k) dot += (s[i * 6 + k] - s[k]) * s[3 + k], len += s[3 + k] * s[3 + k];
    EXPECT_NEAR(dot, 0, 1e-5);
    EXPECT_NEAR(len, 1, 1e-5);
  }
  EXPECT_THROW(random_scale(from_vector(v, {3, 6}), rng, 0, 1), Error);
}

TEST(PointAugmentJitter, NoiseIsClippedAndTranslationIsOneShift) {
  const Tensor cloud = cloud_with_normals(200, 5);
  std::mt19937_64 rng(6);
  const std::vector<float> a = cloud.to_vector<float>(), j = jitter(cloud, rng, 0.1, 0.02).to_vector<float>();
  const std::vector<float> t = random_translate(cloud, rng, 0.5).to_vector<float>();
  bool clipped = false;
  for (size_t i = 0; i < a.size(); ++i) {
    const bool coordinate = i % 6 < 3;
    EXPECT_LE(std::abs(j[i] - a[i]), coordinate ? 0.02f + 1e-6f : 0.0f);  // features untouched
    clipped |= std::abs(std::abs(j[i] - a[i]) - 0.02f) < 1e-6f;
    EXPECT_NEAR(t[i] - a[i], coordinate ? t[i % 6] - a[i % 6] : 0.0f, 1e-5);
    if (coordinate) EXPECT_LE(std::abs(t[i] - a[i]), 0.5f + 1e-5f);
  }
  EXPECT_TRUE(clipped) << "sigma 0.1 with clip 0.02 clips most draws";
}

TEST(PointAugmentNormalize, UnitSphereHasCentroidZeroAndMaxNormOne) {
  const Tensor cloud = cloud_with_normals(100, 7);
  const std::vector<float> v = normalize_unit_sphere(cloud).to_vector<float>(), a = cloud.to_vector<float>();
  double centroid[3] = {0, 0, 0}, max_norm = 0;
  for (int64_t i = 0; i < 100; ++i) {
    double sq = 0;
    for (int k = 0; k < 3; ++k) centroid[k] += v[i * 6 + k] / 100, sq += v[i * 6 + k] * v[i * 6 + k];
    max_norm = std::max(max_norm, std::sqrt(sq));
    for (int k = 3; k < 6; ++k) EXPECT_EQ(v[i * 6 + k], a[i * 6 + k]);
  }
  for (double c : centroid) EXPECT_NEAR(c, 0, 1e-6);
  EXPECT_NEAR(max_norm, 1, 1e-6);
  // One point repeated: centred, not divided by zero.
  EXPECT_EQ(normalize_unit_sphere(full({4, 3}, 2.0f)).to_vector<float>(), std::vector<float>(12, 0.0f));
}

TEST(PointAugmentRows, DropoutAndShuffleSayWhereEachRowCameFrom) {
  const Tensor cloud = cloud_with_normals(500, 8);
  const std::vector<float> a = cloud.to_vector<float>();
  std::mt19937_64 rng(9);
  for (const PointRows& r : {random_dropout(cloud, rng, 0.875), shuffle_points(cloud, rng)}) {
    ASSERT_EQ(r.cloud.shape(), cloud.shape());
    ASSERT_EQ(r.rows.size(), 500u);
    const std::vector<float> b = r.cloud.to_vector<float>();
    for (size_t i = 0; i < 500; ++i)
      for (size_t k = 0; k < 6; ++k) ASSERT_EQ(b[i * 6 + k], a[r.rows[i] * 6 + k]);
  }
  // Dropout replaces points by the first; the shuffle is a permutation.
  std::mt19937_64 again(9);
  const PointRows dropped = random_dropout(cloud, again, 0.875);
  int64_t kept = 0;
  for (size_t i = 0; i < 500; ++i) {
    EXPECT_TRUE(dropped.rows[i] == static_cast<int64_t>(i) || dropped.rows[i] == 0);
    kept += dropped.rows[i] == static_cast<int64_t>(i);
  }
  EXPECT_LT(kept, 500) << "seed 9 drops some";
  std::vector<int64_t> sorted = shuffle_points(cloud, again).rows;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < 500; ++i) EXPECT_EQ(sorted[i], static_cast<int64_t>(i));
}

TEST(PointAugmentPipeline, PartLabelsFollowTheirPointsAndClassLabelsStay) {
  // Point i is (i, 0, 0) with part label i: after dropout and shuffling each row's label is
  // still its point's x. Steps that move no rows leave the labels as they were.
  std::vector<float> v;
  std::vector<int64_t> part;
  for (int64_t i = 0; i < 64; ++i) v.insert(v.end(), {static_cast<float>(i), 0, 0}), part.push_back(i);
  const data::Example ex{from_vector(v, {64, 3}), from_vector(part), scalar_tensor(3, kInt64)};
  Augmentation mix(11);
  mix.dropout(0.8).shuffle().dropout(0.5);
  const data::Example out = mix.apply(ex, 0);
  ASSERT_EQ(out.size(), 3u);
  const std::vector<float> x = out[0].to_vector<float>();
  const std::vector<int64_t> labels = out[1].to_vector<int64_t>();
  ASSERT_EQ(labels.size(), 64u);
  bool moved = false;
  for (size_t i = 0; i < 64; ++i) {
    EXPECT_EQ(static_cast<int64_t>(x[i * 3]), labels[i]);
    moved |= labels[i] != static_cast<int64_t>(i);
  }
  EXPECT_TRUE(moved);
  EXPECT_EQ(out[2].item<int64_t>(), 3);
  Augmentation rigid(12);
  rigid.rotate_so3().translate(0.2).scale().jitter().normalize();
  EXPECT_EQ(rigid.apply(ex, 0)[1].to_vector<int64_t>(), part);
}

TEST(PointAugmentPipeline, SameSeedAndKeySameResultAndEachCallDrawsAfresh) {
  const data::Example ex{cloud_with_normals(50, 13), scalar_tensor(1, kInt64)};
  auto make = [](uint64_t seed) {
    Augmentation a(seed, true);
    a.rotate_about_axis().scale().jitter().translate().dropout().shuffle();
    return a;
  };
  const Augmentation a = make(5), b = make(5), c = make(6);
  const std::vector<float> first = a.apply(ex, 0)[0].to_vector<float>();
  EXPECT_EQ(b.apply(ex, 0)[0].to_vector<float>(), first);
  EXPECT_NE(c.apply(ex, 0)[0].to_vector<float>(), first);
  EXPECT_NE(a.apply(ex, 1)[0].to_vector<float>(), first);
  // As a map function: pass 1 and pass 2 differ, and a fresh pipeline replays pass 1.
  const data::Dataset set = data::Dataset(4, [&](int64_t) { return ex; });
  auto pass = [](const data::Dataset& d) {
    std::vector<float> all;
    for (const data::Example& e : d) {
      const std::vector<float> v = e[0].to_vector<float>();
      all.insert(all.end(), v.begin(), v.end());
    }
    return all;
  };
  const data::Dataset mapped = set.map(make(5));
  const std::vector<float> one = pass(mapped);
  EXPECT_NE(pass(mapped), one);
  EXPECT_EQ(pass(set.map(make(5))), one);
  EXPECT_THROW(make(5).apply({zeros({4, 3})}, 0), Error) << "normals need 6 columns";
}

}  // namespace augment_test
}  // namespace strata::points
