#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "strata/strata.hpp"

namespace strata {
namespace {

// -log softmax(x_r)[id_r] per row by plain loops.
std::vector<double> reference_ce(const std::vector<double>& x, const std::vector<int64_t>& ids, int64_t C) {
  std::vector<double> out;
  for (size_t r = 0; r < ids.size(); ++r) {
    double m = -INFINITY, s = 0;
    for (int64_t c = 0; c < C; ++c) m = std::max(m, x[r * C + c]);
    for (int64_t c = 0; c < C; ++c) s += std::exp(x[r * C + c] - m);
    out.push_back(-(x[r * C + ids[r]] - m - std::log(s)));
  }
  return out;
}

double total(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

TEST(LossTest, CrossEntropyIsMinusLogSoftmaxAtTarget) {
  Generator gen(1);
  Tensor logits = randn({4, 5}, kFloat32, &gen) * 2.0;
  std::vector<int64_t> ids = {0, 4, 2, 2};
  Tensor t = from_vector(ids, {4});
  std::vector<double> want = reference_ce(logits.to_vector<double>(), ids, 5);
  std::vector<double> none = cross_entropy(logits, t, Reduction::none).to_vector<double>();
  ASSERT_EQ(none.size(), 4u);
  for (int r = 0; r < 4; ++r) EXPECT_NEAR(none[r], want[r], 1e-5);
  EXPECT_NEAR(cross_entropy(logits, t).item<double>(), total(want) / 4, 1e-5);
  EXPECT_NEAR(cross_entropy(logits, t, Reduction::sum).item<double>(), total(want), 1e-5);
  EXPECT_EQ(cross_entropy(logits, t).dim(), 0);
}

TEST(LossTest, CrossEntropyWithOneHotEqualsClassIds) {
  Generator gen(2);
  Tensor logits = randn({3, 4}, kFloat64, &gen);
  std::vector<int64_t> ids = {3, 0, 1};
  std::vector<double> onehot(12, 0.0);
  for (int r = 0; r < 3; ++r) onehot[r * 4 + ids[r]] = 1.0;
  double a = cross_entropy(logits, from_vector(ids, {3})).item<double>();
  double b = cross_entropy(logits, from_vector(onehot, {3, 4})).item<double>();
  EXPECT_NEAR(a, b, 1e-12);
}

TEST(LossTest, CrossEntropySoftTargets) {
  Tensor logits = tensor({0.5, -1.0, 2.0}, {1, 3});
  Tensor probs = tensor({0.2, 0.3, 0.5}, {1, 3});
  std::vector<double> x = logits.to_vector<double>();
  double lse = std::log(std::exp(0.5) + std::exp(-1.0) + std::exp(2.0));
  double want = 0.2 * (lse - 0.5) + 0.3 * (lse + 1.0) + 0.5 * (lse - 2.0);
  EXPECT_NEAR(cross_entropy(logits, probs).item<double>(), want, 1e-12);
}

TEST(LossTest, CrossEntropyKeepsLeadingAxes) {
  Generator gen(3);
  Tensor logits = randn({2, 3, 4}, kFloat32, &gen);
  std::vector<int64_t> ids = {0, 1, 2, 3, 3, 1};
  Tensor t = from_vector(ids, {2, 3});
  Tensor none = cross_entropy(logits, t, Reduction::none);
  EXPECT_EQ(none.shape(), (Shape{2, 3}));
  std::vector<double> want = reference_ce(logits.to_vector<double>(), ids, 4);
  std::vector<double> got = none.to_vector<double>();
  for (int r = 0; r < 6; ++r) EXPECT_NEAR(got[r], want[r], 1e-5);
}

TEST(LossTest, CrossEntropyGradientIsSoftmaxMinusOneHot) {
  Generator gen(4);
  Tensor logits = randn({3, 5}, kFloat32, &gen).requires_grad_();
  std::vector<int64_t> ids = {1, 4, 0};
  cross_entropy(logits, from_vector(ids, {3})).backward();
  std::vector<double> p = softmax(logits.detach()).to_vector<double>();
  std::vector<double> g = logits.grad().to_vector<double>();
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 5; ++c) EXPECT_NEAR(g[r * 5 + c], (p[r * 5 + c] - (c == ids[r])) / 3, 1e-6);
}

TEST(LossTest, NllOfLogSoftmaxEqualsCrossEntropy) {
  Generator gen(5);
  Tensor logits = randn({6, 3}, kFloat64, &gen);
  Tensor t = tensor({0, 1, 2, 2, 1, 0});
  EXPECT_NEAR(nll_loss(log_softmax(logits), t).item<double>(), cross_entropy(logits, t).item<double>(), 1e-12);
  std::vector<double> lp = log_softmax(logits).to_vector<double>();
  std::vector<double> none = nll_loss(log_softmax(logits), t, Reduction::none).to_vector<double>();
  EXPECT_NEAR(none[4], -lp[4 * 3 + 1], 1e-12);
}

TEST(LossTest, BinaryCrossEntropyWithLogitsIsStable) {
  Tensor x = tensor({100.0f, -100.0f, 0.0f, 2.0f}, {4});
  Tensor t = tensor({0.0f, 1.0f, 0.5f, 1.0f}, {4});
  std::vector<float> got = binary_cross_entropy_with_logits(x, t, Reduction::none).to_vector<float>();
  EXPECT_NEAR(got[0], 100.0f, 1e-4);
  EXPECT_NEAR(got[1], 100.0f, 1e-4);
  EXPECT_NEAR(got[2], std::log(2.0f), 1e-6);
  EXPECT_NEAR(got[3], std::log1p(std::exp(-2.0f)), 1e-6);  // -log sigmoid(2)
}

TEST(LossTest, RegressionLossesMatchLoops) {
  Generator gen(6);
  Tensor x = randn({5, 4}, kFloat64, &gen) * 2.0, t = randn({5, 4}, kFloat64, &gen);
  std::vector<double> xv = x.to_vector<double>(), tv = t.to_vector<double>();
  double mse = 0, l1 = 0, huber = 0;
  for (size_t i = 0; i < xv.size(); ++i) {
    double d = xv[i] - tv[i];
    mse += d * d;
    l1 += std::abs(d);
    huber += std::abs(d) <= 1.5 ? 0.5 * d * d : 1.5 * (std::abs(d) - 0.75);
  }
  EXPECT_NEAR(mse_loss(x, t).item<double>(), mse / 20, 1e-12);
  EXPECT_NEAR(l1_loss(x, t, Reduction::sum).item<double>(), l1, 1e-12);
  EXPECT_NEAR(huber_loss(x, t, Reduction::mean, 1.5).item<double>(), huber / 20, 1e-12);
  Tensor none = mse_loss(x, t, Reduction::none);
  EXPECT_EQ(none.shape(), x.shape());
  EXPECT_NEAR(none.to_vector<double>()[7], (xv[7] - tv[7]) * (xv[7] - tv[7]), 1e-12);
}

TEST(LossTest, LargeMeanMatchesAcrossThreads) {
  Generator gen(7);
  Tensor x = randn({1000, 300}, kFloat32, &gen), t = randn({1000, 300}, kFloat32, &gen);
  std::vector<double> xv = x.to_vector<double>(), tv = t.to_vector<double>();
  double s = 0;
  for (size_t i = 0; i < xv.size(); ++i) s += (xv[i] - tv[i]) * (xv[i] - tv[i]);
  EXPECT_NEAR(mse_loss(x, t).item<double>(), s / xv.size(), 1e-5);
}

TEST(LossTest, OutOfRangeClassIdNamesIdAndClassCount) {
  Tensor logits = zeros({3, 5});
  try {
    cross_entropy(logits, tensor({0, 7, 1}));
    FAIL() << "expected strata::Error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("cross_entropy"), std::string::npos) << m;
    EXPECT_NE(m.find("7"), std::string::npos) << m;
    EXPECT_NE(m.find("5"), std::string::npos) << m;
  }
  EXPECT_THROW(cross_entropy(logits, tensor({0, -1, 1})), Error);
  EXPECT_THROW(nll_loss(logits, tensor({5, 0, 0})), Error);
}

TEST(LossTest, ShapeAndDtypeErrors) {
  EXPECT_THROW(cross_entropy(zeros({3, 5}), tensor({0, 1})), Error);           // wrong id count
  EXPECT_THROW(cross_entropy(zeros({3, 5}), zeros({3, 4})), Error);            // probability shape
  EXPECT_THROW(cross_entropy(zeros({3, 5}), zeros({3, 5}, kFloat64)), Error);  // probability dtype
  EXPECT_THROW(cross_entropy(zeros({3, 5}), zeros({3}, kBool)), Error);        // id dtype
  EXPECT_THROW(mse_loss(zeros({2, 3}), zeros({3, 2})), Error);
  EXPECT_THROW(l1_loss(zeros({2}, kInt64), zeros({2}, kInt64)), Error);
  EXPECT_THROW(huber_loss(zeros({2}), zeros({2}), Reduction::mean, 0.0), Error);
  EXPECT_THROW(binary_cross_entropy_with_logits(zeros({2}), Tensor()), Error);
}

}  // namespace
}  // namespace strata
