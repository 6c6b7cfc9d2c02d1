// LocalResponseNorm, SwitchNorm, SpectralNorm and WeightNorm against loops written from their
// definitions (tf.nn.local_response_normalization, Luo et al. 2018, Miyato et al. 2018,
// Salimans & Kingma 2016).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "nn/layer_check.hpp"

namespace strata {
namespace {

using testing_nn::expect_gradcheck;

std::vector<double> host_values(const Tensor& t) {
  Tensor c = cast(t, kFloat64).contiguous();
  const double* p = c.data<double>();
  return std::vector<double>(p, p + c.numel());
}

TEST(NormExtrasTest, LocalResponseNormMatchesItsFormula) {
  const Tensor x = randn({2, 3, 3, 7}, kFloat64);
  const int64_t r = 2, C = 7;
  const double bias = 1.0, alpha = 0.5, beta = 0.75;
  const Tensor y = nn::LocalResponseNorm(r, bias, alpha, beta)(x);
  const auto xv = host_values(x), yv = host_values(y);
  for (size_t pos = 0; pos < xv.size() / C; ++pos)
    for (int64_t c = 0; c < C; ++c) {
      double sq = 0;
      for (int64_t k = std::max<int64_t>(0, c - r); k <= std::min<int64_t>(C - 1, c + r); ++k)
        sq += xv[pos * C + k] * xv[pos * C + k];
      EXPECT_NEAR(yv[pos * C + c], xv[pos * C + c] / std::pow(bias + alpha * sq, beta), 1e-12);
    }
  expect_gradcheck([&](const std::vector<Tensor>& in) { return nn::local_response_norm(in[0], r, bias, alpha, beta); },
                   {randn({2, 2, 5}, kFloat64)});
}

TEST(NormExtrasTest, SwitchNormMixesBatchInstanceAndLayerStatistics) {
  const int64_t N = 3, P = 4, C = 5;  // [N, 2, 2, C]: P positions per image
  const Tensor x = randn({N, 2, 2, C}, kFloat64) * 2.0 + 1.0;
  nn::SwitchNorm sn({}, 1e-5, 0.9);
  sn.train();
  const Tensor y = sn(x);
  const auto xv = host_values(x), yv = host_values(y);
  auto at = [&](int64_t n, int64_t p, int64_t c) { return xv[(n * P + p) * C + c]; };
  // At initialisation the three statistics weigh a third each (softmax of ones), gamma 1, beta 0.
  std::vector<double> batch_mean(C), batch_var(C);
  for (int64_t c = 0; c < C; ++c) {
    double s = 0, s2 = 0;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t p = 0; p < P; ++p) s += at(n, p, c), s2 += at(n, p, c) * at(n, p, c);
    batch_mean[c] = s / (N * P);
    batch_var[c] = s2 / (N * P) - batch_mean[c] * batch_mean[c];
  }
  for (int64_t n = 0; n < N; ++n) {
    double ls = 0, ls2 = 0;
    for (int64_t p = 0; p < P; ++p)
      for (int64_t c = 0; c < C; ++c) ls += at(n, p, c), ls2 += at(n, p, c) * at(n, p, c);
    const double layer_mean = ls / (P * C), layer_var = ls2 / (P * C) - layer_mean * layer_mean;
    for (int64_t c = 0; c < C; ++c) {
      double is = 0, is2 = 0;
      for (int64_t p = 0; p < P; ++p) is += at(n, p, c), is2 += at(n, p, c) * at(n, p, c);
      const double inst_mean = is / P, inst_var = is2 / P - inst_mean * inst_mean;
      const double mean = (batch_mean[c] + inst_mean + layer_mean) / 3;
      const double var = (batch_var[c] + inst_var + layer_var) / 3;
      for (int64_t p = 0; p < P; ++p)
        EXPECT_NEAR(yv[(n * P + p) * C + c], (at(n, p, c) - mean) / std::sqrt(var + 1e-5), 1e-6);  // float32 mixing weights
    }
  }
  // The moving statistics took one step from (0, 1) towards the batch's.
  const auto mm = host_values(sn.moving_mean), mv = host_values(sn.moving_var);
  for (int64_t c = 0; c < C; ++c) {
    EXPECT_NEAR(mm[c], 0.1 * batch_mean[c], 1e-6);
    EXPECT_NEAR(mv[c], 0.9 + 0.1 * batch_var[c], 1e-6);
  }
  // Eval uses the moving statistics for the batch part: one image's output no longer depends
  // on the rest of its batch.
  sn.eval();
  const Tensor alone = sn(x.narrow(0, 0, 1)), together = sn(x).narrow(0, 0, 1);
  EXPECT_TRUE(allclose(alone, together, 1e-12, 1e-12));
}

TEST(NormExtrasTest, WeightNormStartsAsTheLayerAndScalesWithG) {
  nn::Dense dense(3);
  const Tensor x = randn({4, 5});
  nn::WeightNorm wn(dense, dense.W);
  const Tensor first = wn(x);
  EXPECT_TRUE(allclose(first, linear(x, dense.W, dense.b), 1e-5, 1e-5)) << "g starts at ||v||";
  {
    NoGradGuard no_grad;
    copy_(wn.g, wn.g * 2.0);
  }
  // W = g v / ||v|| per output column: doubling g doubles W's product.
  EXPECT_TRUE(allclose(wn(x), linear(x, dense.W * 2.0, dense.b), 1e-5, 1e-5));
  // v's own scale no longer matters.
  {
    NoGradGuard no_grad;
    copy_(dense.W, dense.W * 5.0);
  }
  EXPECT_TRUE(allclose(wn(x), linear(x, dense.W * (2.0 / 5.0), dense.b), 1e-5, 1e-5));
}

TEST(NormExtrasTest, SpectralNormDividesByTheLargestSingularValue) {
  nn::Dense dense(4);
  const Tensor x = randn({2, 6});
  nn::SpectralNorm sn(dense, dense.W, /*n_power_iterations=*/50);
  sn.train();
  const Tensor y = sn(x);
  // sigma_max of W [6, 4] by power iteration on W^T W in double, written out here.
  const auto w = host_values(dense.W);
  std::vector<double> v(4, 1.0);
  double sigma = 0;
  for (int it = 0; it < 500; ++it) {
    std::vector<double> wv(6, 0.0), wtwv(4, 0.0);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 4; ++j) wv[i] += w[i * 4 + j] * v[j];
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 4; ++j) wtwv[j] += w[i * 4 + j] * wv[i];
    double n = 0;
    for (double e : wtwv) n += e * e;
    n = std::sqrt(n);
    for (int j = 0; j < 4; ++j) v[j] = wtwv[j] / n;
    sigma = std::sqrt(n);
  }
  EXPECT_NEAR(sn.sigma().item<double>(), sigma, 1e-4 * sigma);
  EXPECT_TRUE(allclose(y, linear(x, dense.W / sigma, dense.b), 1e-4, 1e-4));
}

}  // namespace
}  // namespace strata
