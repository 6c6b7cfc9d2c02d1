#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "strata/ops/dropout.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

// Per-channel mean and biased variance of v viewed as [rows, C].
void channel_moments(const std::vector<double>& v, int64_t C, std::vector<double>& mean, std::vector<double>& var) {
  const int64_t rows = v.size() / C;
  mean.assign(C, 0);
  var.assign(C, 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < C; ++c) mean[c] += v[r * C + c] / rows;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < C; ++c) var[c] += (v[r * C + c] - mean[c]) * (v[r * C + c] - mean[c]) / rows;
}

TEST(NormTest, BatchNormTrainingGivesZeroMeanUnitVariancePerChannel) {
  Generator gen(1);
  Tensor x = randn({8, 3, 3, 4}, kFloat32, &gen) * 3.0 + 2.0;
  Tensor y = batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), /*training=*/true);
  EXPECT_EQ(y.shape(), x.shape());
  std::vector<double> mean, var;
  channel_moments(y.to_vector<double>(), 4, mean, var);
  for (int c = 0; c < 4; ++c) {
    EXPECT_NEAR(mean[c], 0.0, 1e-5);
    EXPECT_NEAR(var[c], 1.0, 1e-3);  // var / (var + eps)
  }
}

TEST(NormTest, BatchNormAppliesGammaAndBeta) {
  Generator gen(2);
  Tensor x = randn({10, 3}, kFloat64, &gen);
  Tensor gamma = tensor({1.0, 2.0, -0.5}), beta = tensor({0.0, 1.0, 3.0});
  std::vector<double> xv = x.to_vector<double>(), mean, var;
  channel_moments(xv, 3, mean, var);
  std::vector<double> y = batch_norm(x, gamma, beta, Tensor(), Tensor(), true, 0.1, 1e-5).to_vector<double>();
  std::vector<double> g = gamma.to_vector<double>(), b = beta.to_vector<double>();
  for (int i = 0; i < 30; ++i) {
    int c = i % 3;
    EXPECT_NEAR(y[i], (xv[i] - mean[c]) / std::sqrt(var[c] + 1e-5) * g[c] + b[c], 1e-12);
  }
}

TEST(NormTest, BatchNormUpdatesRunningStatsAsPyTorch) {
  Generator gen(3);
  Tensor x = randn({6, 2}, kFloat64, &gen) * 2.0 + 1.0;
  Tensor rm = tensor({0.5, -1.0}), rv = tensor({1.0, 2.0});
  batch_norm(x, Tensor(), Tensor(), rm, rv, true, 0.2);
  std::vector<double> mean, var;
  channel_moments(x.to_vector<double>(), 2, mean, var);
  std::vector<double> got_m = rm.to_vector<double>(), got_v = rv.to_vector<double>();
  const double m0[] = {0.5, -1.0}, v0[] = {1.0, 2.0};
  for (int c = 0; c < 2; ++c) {
    EXPECT_NEAR(got_m[c], 0.8 * m0[c] + 0.2 * mean[c], 1e-12);
    EXPECT_NEAR(got_v[c], 0.8 * v0[c] + 0.2 * var[c] * 6 / 5, 1e-12);  // unbiased batch variance
  }
}

TEST(NormTest, BatchNormEvalUsesRunningStats) {
  Generator gen(4);
  Tensor x = randn({4, 2, 3}, kFloat32, &gen);
  Tensor rm = tensor({0.1f, -0.2f, 0.3f}), rv = tensor({0.5f, 2.0f, 1.0f});
  Tensor gamma = tensor({2.0f, 1.0f, 0.5f}), beta = tensor({0.0f, -1.0f, 1.0f});
  std::vector<double> y = batch_norm(x, gamma, beta, rm, rv, /*training=*/false).to_vector<double>();
  std::vector<double> xv = x.to_vector<double>(), m = rm.to_vector<double>(), v = rv.to_vector<double>();
  std::vector<double> g = gamma.to_vector<double>(), b = beta.to_vector<double>();
  for (size_t i = 0; i < xv.size(); ++i) {
    int c = i % 3;
    EXPECT_NEAR(y[i], (xv[i] - m[c]) / std::sqrt(v[c] + 1e-5) * g[c] + b[c], 1e-5);
  }
  EXPECT_NEAR(rm.to_vector<double>()[1], -0.2, 1e-7);  // eval leaves the running stats alone
}

TEST(NormTest, BatchNormErrors) {
  EXPECT_THROW(batch_norm(zeros({4, 3}), zeros({2}), Tensor(), Tensor(), Tensor(), true), Error);
  EXPECT_THROW(batch_norm(zeros({1, 3}), Tensor(), Tensor(), Tensor(), Tensor(), true), Error);  // one value
  EXPECT_THROW(batch_norm(zeros({4, 3}), Tensor(), Tensor(), zeros({3}), Tensor(), true), Error);
  EXPECT_THROW(batch_norm(zeros({4, 3}), zeros({3}, kFloat64), Tensor(), Tensor(), Tensor(), true), Error);
  EXPECT_THROW(batch_norm(zeros({3}), Tensor(), Tensor(), Tensor(), Tensor(), true), Error);
}

TEST(NormTest, LayerNormMatchesReference) {
  Generator gen(5);
  Tensor x = randn({3, 4, 5}, kFloat32, &gen) * 2.0 + 1.0;
  Tensor gamma = randn({4, 5}, kFloat32, &gen), beta = randn({4, 5}, kFloat32, &gen);
  std::vector<double> y = layer_norm(x, {4, 5}, gamma, beta).to_vector<double>();
  std::vector<double> xv = x.to_vector<double>(), g = gamma.to_vector<double>(), b = beta.to_vector<double>();
  for (int r = 0; r < 3; ++r) {
    double m = 0, v = 0;
    for (int i = 0; i < 20; ++i) m += xv[r * 20 + i] / 20;
    for (int i = 0; i < 20; ++i) v += (xv[r * 20 + i] - m) * (xv[r * 20 + i] - m) / 20;
    for (int i = 0; i < 20; ++i)
      EXPECT_NEAR(y[r * 20 + i], (xv[r * 20 + i] - m) / std::sqrt(v + 1e-5) * g[i] + b[i], 1e-5);
  }
}

TEST(NormTest, LayerNormErrors) {
  EXPECT_THROW(layer_norm(zeros({2, 3}), {4}), Error);
  EXPECT_THROW(layer_norm(zeros({2, 3}), {}), Error);
  EXPECT_THROW(layer_norm(zeros({2, 3}), {2, 2, 3}), Error);
  EXPECT_THROW(layer_norm(zeros({2, 3}), {3}, zeros({2})), Error);
}

TEST(DropoutTest, KeepsAboutOneMinusPAndScalesThem) {
  Generator gen(6);
  Tensor x = ones({200000});
  std::vector<float> y = dropout(x, 0.3, true, &gen).to_vector<float>();
  int64_t kept = 0;
  for (float v : y) {
    if (v != 0) {
      ++kept;
      ASSERT_NEAR(v, 1 / 0.7, 1e-6);
    }
  }
  EXPECT_NEAR(static_cast<double>(kept) / y.size(), 0.7, 0.005);
}

TEST(DropoutTest, EvalAndZeroPAreIdentity) {
  Tensor x = tensor({1.0f, 2.0f, 3.0f});
  EXPECT_EQ(dropout(x, 0.5, false).to_vector<float>(), x.to_vector<float>());
  EXPECT_EQ(dropout(x, 0.0, true).to_vector<float>(), x.to_vector<float>());
}

TEST(DropoutTest, SeededGeneratorRepeatsTheMask) {
  Generator a(42), b(42);
  Tensor x = ones({1000});
  std::vector<float> first = dropout(x, 0.5, true, &a).to_vector<float>();
  EXPECT_EQ(first, dropout(x, 0.5, true, &b).to_vector<float>());
  EXPECT_NE(first, dropout(x, 0.5, true, &a).to_vector<float>());  // the generator advanced
}

TEST(DropoutTest, BackwardReusesTheMask) {
  Generator gen(8);
  Tensor x = rand({50, 40}, kFloat32, &gen).requires_grad_();
  Tensor y = dropout(x, 0.4, true, &gen);
  sum(y).backward();
  std::vector<float> yv = y.to_vector<float>(), g = x.grad().to_vector<float>();
  for (size_t i = 0; i < yv.size(); ++i) ASSERT_FLOAT_EQ(g[i], yv[i] == 0 ? 0.0f : 1 / 0.6f);
}

TEST(DropoutTest, RejectsPOutsideZeroOne) {
  EXPECT_THROW(dropout(ones({3}), 1.0, true), Error);
  EXPECT_THROW(dropout(ones({3}), -0.1, true), Error);
  EXPECT_THROW(dropout(ones({3}), 1.5, false), Error);
}

}  // namespace
}  // namespace strata
