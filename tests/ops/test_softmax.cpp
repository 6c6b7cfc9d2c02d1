#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "strata/strata.hpp"

namespace strata {
namespace {

// Plain-loop softmax of x viewed as [outer, n, inner] along the middle axis.
std::vector<double> reference_softmax(const std::vector<double>& x, int64_t outer, int64_t n, int64_t inner,
                                      bool log) {
  std::vector<double> y(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      auto at = [&](int64_t k) { return (o * n + k) * inner + j; };
      double m = -INFINITY, s = 0;
      for (int64_t k = 0; k < n; ++k) m = std::max(m, x[at(k)]);
      for (int64_t k = 0; k < n; ++k) s += std::exp(x[at(k)] - m);
      for (int64_t k = 0; k < n; ++k) y[at(k)] = log ? x[at(k)] - m - std::log(s) : std::exp(x[at(k)] - m) / s;
    }
  return y;
}

void expect_near_all(const Tensor& got, const std::vector<double>& want, double tol) {
  std::vector<double> g = got.to_vector<double>();
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < g.size(); ++i) ASSERT_NEAR(g[i], want[i], tol) << "element " << i;
}

TEST(SoftmaxTest, RowsSumToOneAndMatchExpOverSum) {
  Generator gen(1);
  Tensor x = randn({5, 7}, kFloat32, &gen) * 3.0;
  Tensor y = softmax(x);
  EXPECT_EQ(y.shape(), x.shape());
  EXPECT_EQ(y.dtype(), kFloat32);
  expect_near_all(y, reference_softmax(x.to_vector<double>(), 5, 7, 1, false), 1e-6);
  std::vector<double> v = y.to_vector<double>();
  for (int r = 0; r < 5; ++r) {
    double s = 0;
    for (int c = 0; c < 7; ++c) s += v[r * 7 + c];
    EXPECT_NEAR(s, 1.0, 1e-6);
  }
}

TEST(SoftmaxTest, LogSoftmaxMatchesReference) {
  Generator gen(2);
  Tensor x = randn({4, 9}, kFloat64, &gen) * 5.0;
  expect_near_all(log_softmax(x), reference_softmax(x.to_vector<double>(), 4, 9, 1, true), 1e-12);
}

TEST(SoftmaxTest, LargeRowsUseEveryThreadAndStayExact) {
  Generator gen(3);
  Tensor x = randn({300, 257}, kFloat32, &gen);
  expect_near_all(softmax(x), reference_softmax(x.to_vector<double>(), 300, 257, 1, false), 1e-6);
  expect_near_all(log_softmax(x), reference_softmax(x.to_vector<double>(), 300, 257, 1, true), 1e-5);
}

TEST(SoftmaxTest, AnyAxis) {
  Generator gen(4);
  Tensor x = randn({3, 4, 5}, kFloat64, &gen);
  std::vector<double> xv = x.to_vector<double>();
  expect_near_all(softmax(x, 1), reference_softmax(xv, 3, 4, 5, false), 1e-12);
  expect_near_all(log_softmax(x, 0), reference_softmax(xv, 1, 3, 20, true), 1e-12);
  expect_near_all(softmax(x, -3), reference_softmax(xv, 1, 3, 20, false), 1e-12);
  // Inner sizes wider than one strip of columns.
  Tensor wide = randn({2, 3, 600}, kFloat32, &gen);
  expect_near_all(softmax(wide, 1), reference_softmax(wide.to_vector<double>(), 2, 3, 600, false), 1e-6);
}

TEST(SoftmaxTest, NonContiguousInput) {
  Generator gen(5);
  Tensor base = randn({6, 4}, kFloat64, &gen);
  Tensor x = transpose(base, 0, 1);  // [4, 6], not contiguous
  ASSERT_FALSE(x.is_contiguous());
  expect_near_all(softmax(x), reference_softmax(x.to_vector<double>(), 4, 6, 1, false), 1e-12);
}

TEST(SoftmaxTest, StableForLargeLogits) {
  Tensor x = tensor({1000.0f, 1001.0f, 1002.0f, -1000.0f}, {1, 4});
  std::vector<float> y = softmax(x).to_vector<float>();
  for (float v : y) EXPECT_TRUE(std::isfinite(v));
  EXPECT_NEAR(y[2], 0.66524096f, 1e-6);
  std::vector<float> ly = log_softmax(x).to_vector<float>();
  EXPECT_NEAR(ly[3], -2002.4076f, 1e-2);
}

// log_softmax keeps the digits of (x - max) - log(sum) at large x, along the last axis and along
// a strided one: x - (max + log(sum)) would round log(sum) to max's precision (float32's ulp at
// 10000 is 1e-3).
TEST(SoftmaxTest, LogSoftmaxOfLargeLogitsKeepsItsDigits) {
  const std::vector<float> row = {10000.0f, 10000.5f, 10001.25f, 9999.0f};
  std::vector<double> expected;
  double sum = 0;
  for (float v : row) sum += std::exp(static_cast<double>(v) - 10001.25);
  for (float v : row) expected.push_back(static_cast<double>(v) - 10001.25 - std::log(sum));
  const std::vector<float> last = log_softmax(from_vector(row, {1, 4})).to_vector<float>();
  const std::vector<float> strided = log_softmax(from_vector(row, {4, 1}), 0).to_vector<float>();
  for (size_t i = 0; i < row.size(); ++i) {
    EXPECT_NEAR(last[i], expected[i], 1e-6) << i;
    EXPECT_NEAR(strided[i], expected[i], 1e-6) << i;
  }
}

TEST(SoftmaxTest, Errors) {
  EXPECT_THROW(softmax(tensor({1, 2, 3}), -1), Error);  // int64
  EXPECT_THROW(softmax(zeros({2, 3}), 2), Error);
  EXPECT_THROW(log_softmax(zeros({2, 3}), -3), Error);
  EXPECT_THROW(softmax(scalar_tensor(1.0)), Error);
}

}  // namespace
}  // namespace strata
