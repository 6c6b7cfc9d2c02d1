// Style transfer's statistics (ops/style.hpp): values against plain loops over the same numbers,
// gradients (and AdaIN's second order) against finite differences, and the errors bad
// arguments give.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/expect_error.hpp"
#include "strata/ops/style.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

Tensor style_test_features(const Shape& shape, uint64_t seed) {
  Generator gen(seed);
  return randn(shape, kFloat64, &gen);
}

// x[n, y, x, c] of a contiguous float64 NHWC tensor's values.
double style_at(const std::vector<double>& v, const Shape& s, int64_t n, int64_t y, int64_t x, int64_t c) {
  return v[static_cast<size_t>(((n * s[1] + y) * s[2] + x) * s[3] + c)];
}

// The per-channel mean and biased variance of one image, by loops.
void style_loop_stats(const std::vector<double>& v, const Shape& s, int64_t n, int64_t c, double& mu, double& variance) {
  const double count = static_cast<double>(s[1] * s[2]);
  mu = variance = 0;
  for (int64_t y = 0; y < s[1]; ++y)
    for (int64_t x = 0; x < s[2]; ++x) mu += style_at(v, s, n, y, x, c) / count;
  for (int64_t y = 0; y < s[1]; ++y)
    for (int64_t x = 0; x < s[2]; ++x) variance += std::pow(style_at(v, s, n, y, x, c) - mu, 2) / count;
}

void expect_style_gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& in) {
  const auto r = autograd::gradcheck(f, in);
  EXPECT_TRUE(r.ok) << r.message;
}

TEST(StyleTest, GramMatrixIsTheChannelCorrelationsOverPositions) {
  const Tensor f = style_test_features({2, 3, 4, 5}, 1);
  const Shape s = f.shape();
  const std::vector<double> v = f.to_vector<double>();
  const Tensor g = gram_matrix(f);
  ASSERT_EQ(g.shape(), (Shape{2, 5, 5}));
  const std::vector<double> gv = g.to_vector<double>();
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t j = 0; j < 5; ++j) {
        double want = 0;
        for (int64_t y = 0; y < 3; ++y)
          for (int64_t x = 0; x < 4; ++x) want += style_at(v, s, n, y, x, i) * style_at(v, s, n, y, x, j) / 12.0;
        EXPECT_NEAR(gv[static_cast<size_t>((n * 5 + i) * 5 + j)], want, 1e-12) << n << " " << i << " " << j;
      }
  expect_style_gradcheck([](const std::vector<Tensor>& in) { return gram_matrix(in[0]); },
                         {style_test_features({2, 3, 2, 4}, 2).requires_grad_()});
}

TEST(StyleTest, GramStyleLossAveragesTheLayersSquaredErrors) {
  const Tensor a = style_test_features({2, 3, 3, 4}, 3), b = style_test_features({2, 2, 2, 6}, 4);
  const Tensor ta = style_test_features({1, 4, 4}, 5), tb = style_test_features({2, 6, 6}, 6);
  // Layer by layer, by loops over the Gram matrices (the target of the first broadcast over N).
  auto layer_error = [](const Tensor& g, const Tensor& t) {
    const std::vector<double> gv = g.to_vector<double>(), tv = t.to_vector<double>();
    const size_t per_image = tv.size() / static_cast<size_t>(t.size(0));
    double e = 0;
    for (size_t k = 0; k < gv.size(); ++k) e += std::pow(gv[k] - tv[t.size(0) == 1 ? k % per_image : k], 2);
    return e / static_cast<double>(gv.size());
  };
  const double want = (layer_error(gram_matrix(a), ta) + layer_error(gram_matrix(b), tb)) / 2;
  EXPECT_NEAR(gram_style_loss({a, b}, {ta, tb}).item<double>(), want, 1e-12);
  EXPECT_NEAR(gram_style_loss({a}, {gram_matrix(a)}).item<double>(), 0.0, 1e-15);
  expect_style_gradcheck([&](const std::vector<Tensor>& in) { return gram_style_loss({in[0], in[1]}, {ta, tb}); },
                         {a.clone().requires_grad_(), b.clone().requires_grad_()});
}

TEST(StyleTest, AdainGivesTheContentTheStylesChannelStatistics) {
  const Tensor content = style_test_features({2, 3, 4, 3}, 7);
  const Tensor style = style_test_features({2, 5, 2, 3}, 8) * 3.0 + 1.5;
  const double eps = 1e-5;
  const Tensor out = adain(content, style, eps);
  ASSERT_EQ(out.shape(), content.shape());
  const std::vector<double> cv = content.to_vector<double>(), sv = style.to_vector<double>(), ov = out.to_vector<double>();
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 3; ++c) {
      double cm = 0, cvar = 0, sm = 0, svar = 0;
      style_loop_stats(cv, content.shape(), n, c, cm, cvar);
      style_loop_stats(sv, style.shape(), n, c, sm, svar);
      for (int64_t y = 0; y < 3; ++y)
        for (int64_t x = 0; x < 4; ++x) {
          const double want = (style_at(cv, content.shape(), n, y, x, c) - cm) / std::sqrt(cvar + eps) * std::sqrt(svar + eps) + sm;
          EXPECT_NEAR(style_at(ov, out.shape(), n, y, x, c), want, 1e-12);
        }
      // So the result has the style's mean and (up to eps) its deviation.
      double om = 0, ovar = 0;
      style_loop_stats(ov, out.shape(), n, c, om, ovar);
      EXPECT_NEAR(om, sm, 1e-12);
      EXPECT_NEAR(std::sqrt(ovar), std::sqrt(svar), 1e-4);
    }
  // One style image for a batch of contents.
  EXPECT_EQ(adain(content, narrow(style, 0, 0, 1)).shape(), content.shape());
  const Tensor c_small = style_test_features({2, 3, 2, 2}, 9), s_small = style_test_features({2, 2, 3, 2}, 10);
  const auto f = [](const std::vector<Tensor>& in) { return adain(in[0], in[1]); };
  expect_style_gradcheck(f, {c_small.clone().requires_grad_(), s_small.clone().requires_grad_()});
  const auto second = autograd::gradgradcheck(f, {c_small.clone().requires_grad_(), s_small.clone().requires_grad_()});
  EXPECT_TRUE(second.ok) << second.message;
}

TEST(StyleTest, MeanStdStyleLossSumsTheLayersStatisticErrors) {
  const Tensor a = style_test_features({2, 3, 3, 4}, 11), sa = style_test_features({2, 4, 2, 4}, 12) * 2.0;
  const Tensor b = style_test_features({2, 2, 2, 2}, 13), sb = style_test_features({2, 3, 3, 2}, 14) + 1.0;
  auto layer_error = [](const Tensor& x, const Tensor& s) {
    const std::vector<double> xv = x.to_vector<double>(), sv = s.to_vector<double>();
    double e_mean = 0, e_std = 0;
    const int64_t n = x.size(0), c = x.size(3);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < c; ++k) {
        double xm = 0, xvar = 0, sm = 0, svar = 0;
        style_loop_stats(xv, x.shape(), i, k, xm, xvar);
        style_loop_stats(sv, s.shape(), i, k, sm, svar);
        e_mean += std::pow(xm - sm, 2) / static_cast<double>(n * c);
        e_std += std::pow(std::sqrt(xvar + 1e-5) - std::sqrt(svar + 1e-5), 2) / static_cast<double>(n * c);
      }
    return e_mean + e_std;
  };
  EXPECT_NEAR(mean_std_style_loss({a, b}, {sa, sb}).item<double>(), layer_error(a, sa) + layer_error(b, sb), 1e-12);
  EXPECT_NEAR(mean_std_style_loss({adain(a, sa)}, {sa}).item<double>(), 0.0, 1e-8);
  expect_style_gradcheck([&](const std::vector<Tensor>& in) { return mean_std_style_loss({in[0], in[1]}, {sa, sb}); },
                         {a.clone().requires_grad_(), b.clone().requires_grad_()});
}

TEST(StyleTest, TotalVariationIsTheNeighboursSquaredDifferences) {
  const Tensor img = style_test_features({2, 3, 4, 2}, 15);
  const Shape s = img.shape();
  const std::vector<double> v = img.to_vector<double>();
  double dy = 0, dx = 0;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t y = 0; y < 3; ++y)
      for (int64_t x = 0; x < 4; ++x)
        for (int64_t c = 0; c < 2; ++c) {
          if (y + 1 < 3) dy += std::pow(style_at(v, s, n, y + 1, x, c) - style_at(v, s, n, y, x, c), 2) / (2 * 2 * 4 * 2);
          if (x + 1 < 4) dx += std::pow(style_at(v, s, n, y, x + 1, c) - style_at(v, s, n, y, x, c), 2) / (2 * 3 * 3 * 2);
        }
  EXPECT_NEAR(total_variation_loss(img).item<double>(), dy + dx, 1e-12);
  EXPECT_EQ(total_variation_loss(full({1, 4, 4, 3}, 0.7, kFloat64)).item<double>(), 0.0);
  expect_style_gradcheck([](const std::vector<Tensor>& in) { return total_variation_loss(in[0]); },
                         {img.clone().requires_grad_()});
}

TEST(StyleTest, BadArgumentsAreRefusedNamingWhatCame) {
  testing::expect_error([] { gram_matrix(zeros({3, 4})); }, {"gram_matrix", "[N, H, W, C]", "[3, 4]"});
  testing::expect_error([] { gram_matrix(zeros({1, 2, 2, 3}, kInt64)); }, {"gram_matrix", "int64"});
  testing::expect_error([] { adain(zeros({2, 4, 4, 3}), zeros({2, 4, 4, 5})); }, {"adain", "[2, 4, 4, 3]", "[2, 4, 4, 5]"});
  testing::expect_error([] { adain(zeros({2, 4, 4, 3}), zeros({3, 4, 4, 3})); }, {"adain", "batch"});
  testing::expect_error([] { gram_style_loss({zeros({1, 2, 2, 3})}, {}); }, {"gram_style_loss", "1 layers and 0 targets"});
  testing::expect_error([] { gram_style_loss({zeros({1, 2, 2, 3})}, {zeros({1, 4, 4})}); },
                        {"gram_style_loss", "[1, 3, 3]", "[1, 4, 4]"});
  testing::expect_error([] { mean_std_style_loss({zeros({1, 2, 2, 3})}, {zeros({1, 2, 2, 4})}); },
                        {"mean_std_style_loss", "3 channels", "4"});
  testing::expect_error([] { total_variation_loss(zeros({1, 1, 5, 3})); }, {"total_variation_loss", "2x2", "[1, 1, 5, 3]"});
  testing::expect_error([] { channel_mean_std(zeros({1, 2, 2, 3}), 0); }, {"channel_mean_std", "eps"});
}

}  // namespace
}  // namespace strata
