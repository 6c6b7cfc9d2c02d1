// Featurewise normalisation and ZCA whitening, checked on the statistics of their outputs,
// computed here by plain loops.
#include <gtest/gtest.h>

#include <cmath>

#include "support/max_abs_diff.hpp"
#include "strata/core/factory.hpp"
#include "strata/vision/featurewise.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/shape.hpp"

using namespace strata;
using namespace strata::vision;

namespace {

// Covariance (population) of [N, D] samples, by loops.
std::vector<double> covariance(const Tensor& samples) {
  const int64_t n = samples.size(0), d = samples.numel() / n;
  std::vector<double> x = samples.to_vector<double>(), mean(d, 0.0), cov(d * d, 0.0);
  for (int64_t s = 0; s < n; ++s)
    for (int64_t i = 0; i < d; ++i) mean[i] += x[s * d + i] / n;
  for (int64_t s = 0; s < n; ++s)
    for (int64_t i = 0; i < d; ++i)
      for (int64_t j = 0; j < d; ++j) cov[i * d + j] += (x[s * d + i] - mean[i]) * (x[s * d + j] - mean[j]) / n;
  return cov;
}

// 500 samples of 4x4x1 whose pixels are correlated: independent normals mixed by a random
// matrix, plus a brightness common to the whole patch (well conditioned, so epsilon's share of
// each eigenvalue stays below 1e-5).
Tensor correlated_patches(Generator& gen) {
  Tensor z = randn({500, 16}, kFloat64, &gen);
  Tensor mixing = eye(16, -1, kFloat64) + uniform({16, 16}, -0.2, 0.2, kFloat64, &gen);
  Tensor common = randn({500, 1}, kFloat64, &gen) * 2.0;
  return reshape(matmul(z, mixing) + common + 3.0, {500, 4, 4, 1});
}

}  // namespace

TEST(Featurewise, NormalisedDataHasChannelMeanZeroAndStdOne) {
  Generator gen(21);
  // Three channels with different offsets and scales.
  Tensor data = randn({40, 5, 6, 3}, kFloat32, &gen) * from_vector<float>({1, 10, 0.1f}, {3}) +
                from_vector<float>({5, -20, 100}, {3});
  FeaturewiseNormalization norm = FeaturewiseNormalization::fit(data);
  Tensor out = norm(data);
  EXPECT_EQ(out.dtype(), kFloat32);
  std::vector<double> v = out.to_vector<double>();
  for (int c = 0; c < 3; ++c) {
    double mean = 0, sq = 0;
    const double count = static_cast<double>(v.size() / 3);
    for (size_t i = c; i < v.size(); i += 3) mean += v[i] / count;
    for (size_t i = c; i < v.size(); i += 3) sq += (v[i] - mean) * (v[i] - mean) / count;
    EXPECT_NEAR(mean, 0, 1e-5) << "channel " << c;
    EXPECT_NEAR(std::sqrt(sq), 1, 1e-4) << "channel " << c;
  }
  EXPECT_NEAR(norm.mean()[2], 100, 0.05);
  EXPECT_NEAR(norm.std()[1], 10, 1.0);
  // Fitted once, applied to one later image (HWC) the same way.
  Tensor first = select(data, 0, 0);
  EXPECT_LT(max_abs_diff(norm(first), select(out, 0, 0)), 1e-6);
  Tensor u8 = full({2, 2, 3}, 7, kUInt8);
  EXPECT_EQ(FeaturewiseNormalization::fit(u8)(u8).to_vector<float>(), std::vector<float>(12, 0.0f));
  EXPECT_THROW(norm(zeros({4, 4, 2})), Error);
}

TEST(Featurewise, ZcaWhitenedDataHasIdentityCovariance) {
  Generator gen(22);
  Tensor data = correlated_patches(gen);
  std::vector<double> before = covariance(data);
  EXPECT_GT(before[1] / std::sqrt(before[0] * before[17]), 0.5);  // the pixels really are correlated
  ZcaWhitening zca = ZcaWhitening::fit(data);
  Tensor white = zca(data);
  EXPECT_EQ(white.shape(), data.shape());
  EXPECT_EQ(white.dtype(), kFloat64);
  std::vector<double> cov = covariance(white);
  double worst = 0;
  for (int64_t i = 0; i < 16; ++i)
    for (int64_t j = 0; j < 16; ++j) worst = std::max(worst, std::abs(cov[i * 16 + j] - (i == j ? 1.0 : 0.0)));
  EXPECT_LT(worst, 1e-4);
  // Zero-phase: the matrix is symmetric, and the whitened mean is zero.
  Tensor w = zca.matrix();
  EXPECT_LT(max_abs_diff(w, mT(w)), 1e-10);
  std::vector<double> v = white.to_vector<double>();
  double mean0 = 0;
  for (size_t i = 0; i < v.size(); i += 16) mean0 += v[i] / 500;
  EXPECT_NEAR(mean0, 0, 1e-10);
  // One sample, float32, gives the same row.
  Tensor one = zca(select(data, 0, 3).to(kFloat32));
  EXPECT_EQ(one.dtype(), kFloat32);
  EXPECT_LT(max_abs_diff(one, select(white, 0, 3)), 1e-4);
  EXPECT_THROW(zca(zeros({2, 4, 5, 1})), Error);
  EXPECT_THROW(ZcaWhitening::fit(zeros({1, 4})), Error);
}

TEST(Featurewise, ZcaOfAlreadyWhiteDataIsNearTheIdentity) {
  // Independent unit-variance features: W should be close to I (up to sampling noise).
  Generator gen(23);
  ZcaWhitening zca = ZcaWhitening::fit(randn({20000, 3}, kFloat64, &gen));
  EXPECT_LT(max_abs_diff(zca.matrix(), eye(3, -1, kFloat64)), 0.05);
}
