// Forward values of the element-wise, reduction and matmul ops against plain loops.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "strata/strata.hpp"

namespace strata {
namespace {

TEST(ValuesTest, UnaryMatchesLibm) {
  Tensor x = linspace(-6, 6, 1001);
  auto xs = x.to_vector<float>();
  auto check = [&](Tensor y, auto ref, double tol) {
    auto ys = y.to_vector<float>();
    for (size_t i = 0; i < xs.size(); ++i) {
      double want = ref(static_cast<double>(xs[i]));
      ASSERT_NEAR(ys[i], want, tol * std::max(1.0, std::abs(want))) << "at x=" << xs[i];
    }
  };
  check(exp(x), [](double v) { return std::exp(v); }, 2e-7);
  check(tanh(x), [](double v) { return std::tanh(v); }, 2e-7);
  check(sigmoid(x), [](double v) { return 1 / (1 + std::exp(-v)); }, 2e-7);
  check(gelu(x), [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }, 1e-6);
  check(softplus(x), [](double v) { return std::log1p(std::exp(v)); }, 1e-6);
  check(mish(x), [](double v) { return v * std::tanh(std::log1p(std::exp(v))); }, 1e-6);
  check(silu(x), [](double v) { return v / (1 + std::exp(-v)); }, 1e-6);
  check(elu(x, 1.0), [](double v) { return v > 0 ? v : std::exp(v) - 1; }, 1e-6);
  check(hard_sigmoid(x), [](double v) { return std::clamp((v + 3) / 6, 0.0, 1.0); }, 1e-7);
  check(leaky_relu(x, 0.2), [](double v) { return v > 0 ? v : 0.2 * v; }, 1e-7);
  // Extremes: exp overflows to inf and underflows to 0; tanh saturates.
  auto e = exp(tensor({100.0f, -100.0f, 0.0f})).to_vector<float>();
  EXPECT_TRUE(std::isinf(e[0]));
  EXPECT_EQ(e[1], 0.0f);
  EXPECT_EQ(e[2], 1.0f);
  EXPECT_EQ(tanh(tensor({30.0f})).item<float>(), 1.0f);
  EXPECT_TRUE(std::isnan(exp(tensor({NAN})).item<float>()));
}

TEST(ValuesTest, BroadcastingBinaryMatchesLoops) {
  Tensor a = randn({4, 1, 3}), b = randn({5, 1});
  Tensor y = a * b + b;
  ASSERT_EQ(y.shape(), Shape({4, 5, 3}));
  auto av = a.to_vector<float>(), bv = b.to_vector<float>(), yv = y.to_vector<float>();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 3; ++k) EXPECT_FLOAT_EQ(yv[(i * 5 + j) * 3 + k], av[i * 3 + k] * bv[j] + bv[j]);
}

TEST(ValuesTest, LargeTensorsSplitAcrossThreadsGiveTheSameAnswer) {
  Tensor a = randn({1000, 1000}), b = randn({1000, 1000});
  Tensor big = a + b.transpose(0, 1);
  auto av = a.to_vector<float>(), bv = b.to_vector<float>(), yv = big.to_vector<float>();
  for (int i = 0; i < 1000; i += 37)
    for (int j = 0; j < 1000; j += 41) EXPECT_FLOAT_EQ(yv[i * 1000 + j], av[i * 1000 + j] + bv[j * 1000 + i]);
}

TEST(ValuesTest, ReductionsMatchLoops) {
  Tensor x = randn({3, 4, 5}, kFloat64);
  auto v = x.to_vector<double>();
  auto at = [&](int i, int j, int k) { return v[(i * 4 + j) * 5 + k]; };
  Tensor s = sum(x, {0, 2});
  Tensor m = amax(x, {1}, true);
  Tensor am = argmax(x, 1);
  Tensor vr = var(x, {2});
  for (int j = 0; j < 4; ++j) {
    double acc = 0;
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 5; ++k) acc += at(i, j, k);
    EXPECT_NEAR(s.to_vector<double>()[j], acc, 1e-12);
  }
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 5; ++k) {
      double best = at(i, 0, k);
      int64_t arg = 0;
      for (int j = 1; j < 4; ++j)
        if (at(i, j, k) > best) best = at(i, j, k), arg = j;
      EXPECT_EQ(m.to_vector<double>()[i * 5 + k], best);
      EXPECT_EQ(am.to_vector<int64_t>()[i * 5 + k], arg);
    }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      double mu = 0, ss = 0;
      for (int k = 0; k < 5; ++k) mu += at(i, j, k) / 5;
      for (int k = 0; k < 5; ++k) ss += (at(i, j, k) - mu) * (at(i, j, k) - mu);
      EXPECT_NEAR(vr.to_vector<double>()[i * 4 + j], ss / 4, 1e-12);
    }
  EXPECT_EQ(cumsum(tensor({1, 2, 3, 4}), 0).to_vector<int64_t>(), (std::vector<int64_t>{1, 3, 6, 10}));
  EXPECT_EQ(sum(tensor({1, 2, 3})).dtype(), kInt64);
  EXPECT_NEAR(logsumexp(tensor({1000.0, 1000.0})).item<double>(), 1000 + std::log(2.0), 1e-9);
}

TEST(ValuesTest, SumOfTenMillionFloatsIsAccurate) {
  Tensor x = full({10000000}, 0.1);
  EXPECT_NEAR(sum(x).item<double>(), 1e6, 10.0);  // naive float accumulation is off by ~1e5
}

TEST(ValuesTest, MatmulMatchesLoops) {
  for (auto [M, K, N] : {std::tuple{5, 7, 3}, std::tuple{64, 33, 17}}) {
    Tensor a = randn({2, M, K}), b = randn({K, N});
    Tensor y = matmul(a, b);
    ASSERT_EQ(y.shape(), Shape({2, M, N}));
    auto av = a.to_vector<float>(), bv = b.to_vector<float>(), yv = y.to_vector<float>();
    for (int p = 0; p < 2; ++p)
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
          double acc = 0;
          for (int k = 0; k < K; ++k) acc += double(av[(p * M + i) * K + k]) * bv[k * N + j];
          EXPECT_NEAR(yv[(p * M + i) * N + j], acc, 1e-4);
        }
  }
  // Transposed operands are read in place and agree with contiguous copies.
  Tensor a = randn({6, 4}), b = randn({5, 6});
  EXPECT_TRUE(allclose(matmul(a.transpose(0, 1), b.transpose(0, 1)),
                       matmul(a.transpose(0, 1).contiguous(), b.transpose(0, 1).contiguous()), 1e-5, 1e-5));
  // float32 (oneDNN) agrees with float64 (loops).
  EXPECT_TRUE(allclose(matmul(a.transpose(0, 1), b.transpose(0, 1)).to(kFloat64),
                       matmul(a.to(kFloat64).transpose(0, 1), b.to(kFloat64).transpose(0, 1)), 1e-5, 1e-5));
  Tensor x = randn({3, 4}), w = randn({4, 2}), bias = randn({2});
  EXPECT_TRUE(allclose(linear(x, w, bias), matmul(x, w) + bias, 1e-5, 1e-5));
}

// One row times a row-major matrix takes its own kernel (kernels/cpu/gemv.cpp): rows split over
// the threads, columns in blocks of 128, 16 and 1. Sizes here hit every block and the threaded
// path; the weight is also a column slice of a wider matrix (a row stride other than N).
TEST(ValuesTest, BatchOneLinearMatchesFloat64) {
  for (auto [K, N] : {std::pair{3136, 256}, std::pair{700, 300}, std::pair{5, 3}, std::pair{1000, 1}}) {
    Tensor x = randn({1, K}), wide = randn({K, N + 9}), bias = randn({N});
    Tensor w = narrow(wide, 1, 4, N);
    for (bool with_bias : {true, false}) {
      const Tensor b = with_bias ? bias : Tensor();
      Tensor want = matmul(x.to(kFloat64), w.to(kFloat64));
      if (with_bias) want = want + bias.to(kFloat64);
      EXPECT_TRUE(allclose(linear(x, w, b).to(kFloat64), want, 1e-5, 1e-4)) << K << "x" << N;
      EXPECT_TRUE(allclose(matmul(x, w).to(kFloat64), matmul(x.to(kFloat64), w.to(kFloat64)), 1e-5, 1e-4));
    }
  }
}

// Scalars and results outside an integer type's range saturate (docs/conventions.md), where a
// plain C++ conversion would be undefined behaviour (UBSan found these).
TEST(ValuesTest, IntegerScalarArgumentsAndPowOverflowSaturate) {
  const Tensor u8 = from_vector<uint8_t>({0, 100, 255}, {3});
  EXPECT_EQ(clamp(u8, -1, 300).to_vector<int>(), std::vector<int>({0, 100, 255}));
  EXPECT_EQ(clamp(u8, 50, 300).to_vector<int>(), std::vector<int>({50, 100, 255}));
  EXPECT_EQ(full({2}, 300.0, kUInt8).to_vector<int>(), std::vector<int>({255, 255}));
  EXPECT_EQ(full({2}, -7.0, kUInt8).to_vector<int>(), std::vector<int>({0, 0}));
  const Tensor base = from_vector<int32_t>({2, 2, -2}, {3}), exponent = from_vector<int32_t>({10, 40, 41}, {3});
  EXPECT_EQ(pow(base, exponent).to_vector<int64_t>(),
            std::vector<int64_t>({1024, std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min()}));
}

}  // namespace
}  // namespace strata
