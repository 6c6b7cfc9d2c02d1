// t-SNE (viz/tsne.hpp) against scikit-learn 1.5.2's exact t-SNE on the same points
// (fixtures/make_tsne_fixture.py): the same affinities, a fit as good, and the picture.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "strata/core/factory.hpp"
#include "strata/io/npz.hpp"
#include "strata/viz/tsne.hpp"
#include "strata/viz/visualize.hpp"
#include "support/expect_error.hpp"

using namespace strata;
using strata::testing::expect_error;

namespace {

Tensor fixture(const std::string& name) {
  for (const auto& [n, t] : io::load_npz(std::string(STRATA_TESTS_DIR) + "/viz/fixtures/tsne_sklearn.npz"))
    if (n == name) return t;
  ADD_FAILURE() << "no " << name << " in the fixture";
  return Tensor();
}

std::vector<int64_t> ranks_by_distance(const std::vector<double>& x, int64_t n, int64_t d, int64_t i) {
  std::vector<double> dist(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    double s = 0;
    for (int64_t k = 0; k < d; ++k) s += (x[i * d + k] - x[j * d + k]) * (x[i * d + k] - x[j * d + k]);
    dist[j] = j == i ? -1 : s;  // itself first, rank 0
  }
  std::vector<int64_t> order(static_cast<size_t>(n)), rank(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return dist[a] < dist[b]; });
  for (int64_t r = 0; r < n; ++r) rank[order[r]] = r;
  return rank;
}

// scikit-learn's trustworthiness: how many of each point's k nearest in the embedding were not
// among its k nearest before, weighted by how far down they ranked.
double trustworthiness(const Tensor& x, const Tensor& y, int64_t k) {
  const int64_t n = x.shape()[0], d = x.shape()[1];
  const std::vector<double> xv = x.to_vector<double>(), yv = y.to_vector<double>();
  double penalty = 0;
  for (int64_t i = 0; i < n; ++i) {
    const std::vector<int64_t> before = ranks_by_distance(xv, n, d, i), after = ranks_by_distance(yv, n, 2, i);
    for (int64_t j = 0; j < n; ++j)
      if (after[j] >= 1 && after[j] <= k) penalty += std::max<int64_t>(0, before[j] - k);
  }
  return 1 - 2.0 / (n * k * (2.0 * n - 3.0 * k - 1.0)) * penalty;
}

TEST(TsneTest, AffinitiesAreScikitLearns) {
  const Tensor p = viz::tsne_affinities(fixture("x"), 10.0), want = fixture("p");
  ASSERT_EQ(p.shape(), want.shape());
  const auto a = p.to_vector<double>(), b = want.to_vector<double>();
  double total = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_NEAR(a[i], b[i], 1e-12 + 1e-9 * std::abs(b[i])) << i;
    total += a[i];
  }
  EXPECT_NEAR(total, 1.0, 1e-9);
}

TEST(TsneTest, FitsAsWellAsScikitLearn) {
  const Tensor x = fixture("x");
  const Tensor y = viz::tsne(x, {.perplexity = 10});
  ASSERT_EQ(y.shape(), Shape({90, 2}));
  const double kl = viz::tsne_kl_divergence(viz::tsne_affinities(x, 10), y);
  const double sklearn_kl = fixture("kl").item<double>(), sklearn_trust = fixture("trust").item<double>();
  EXPECT_GT(kl, 0);
  EXPECT_LT(kl, 1.1 * sklearn_kl) << "scikit-learn reached " << sklearn_kl;
  EXPECT_GT(trustworthiness(x, y, 5), sklearn_trust - 0.02) << "scikit-learn's " << sklearn_trust;
  // The three clusters stay apart: each point's nearest embedded neighbour is of its cluster.
  const auto yv = y.to_vector<double>();
  for (int64_t i = 0; i < 90; ++i) {
    int64_t best = -1;
    double best_d = 1e300;
    for (int64_t j = 0; j < 90; ++j) {
      const double d = std::hypot(yv[2 * i] - yv[2 * j], yv[2 * i + 1] - yv[2 * j + 1]);
      if (j != i && d < best_d) best_d = d, best = j;
    }
    EXPECT_EQ(best / 30, i / 30) << "point " << i;
  }
  // A random start reaches a fit about as good.
  const Tensor r = viz::tsne(x, {.perplexity = 10, .pca_init = false, .seed = 3});
  EXPECT_LT(viz::tsne_kl_divergence(viz::tsne_affinities(x, 10), r), 1.2 * sklearn_kl);
}

TEST(TsneTest, RefusesWhatItCannotEmbed) {
  const Tensor x = fixture("x");
  expect_error([&] { viz::tsne(x, {.perplexity = 89}); }, {"perplexity 89", "(0, N - 1)"});
  expect_error([&] { viz::tsne(x.narrow(0, 0, 1)); }, {"at least 2 points"});
  expect_error([&] { viz::tsne(x, {.max_points = 50}); }, {"90 points", "max_points = 50"});
  expect_error([&] { viz::tsne(x, {.iterations = 10}); }, {"iterations 10"});
  std::vector<double> values = x.to_vector<double>();
  values[17] = std::nan("");
  expect_error([&] { viz::tsne(from_vector(values, x.shape())); }, {"NaN"});
  expect_error([&] { viz::tsne(zeros({4, 2, 2})); }, {"[N, D]"});
}

TEST(TsneTest, PlotsEachPointInItsColourWithItsText) {
  const Tensor pts = from_vector(std::vector<float>{0, 0, 1, 1, 1, 0}, {3, 2});
  const viz::EmbeddingPlotOptions o{.width = 100, .height = 80, .margin = 10};
  const Tensor img = viz::plot_embedding(pts, {0, 1, 2}, {}, o);
  ASSERT_EQ(img.shape(), Shape({80, 100, 3}));
  const auto px = img.to_vector<uint8_t>();
  auto at = [&](int64_t y, int64_t x) {
    const size_t k = static_cast<size_t>((y * 100 + x) * 3);
    return std::vector<uint8_t>{px[k], px[k + 1], px[k + 2]};
  };
  // (0, 0) at the bottom-left inside the margin, (1, 1) top-right, (1, 0) bottom-right
  EXPECT_EQ(at(69, 10), viz::curve_color(0));
  EXPECT_EQ(at(10, 89), viz::curve_color(1));
  EXPECT_EQ(at(69, 89), viz::curve_color(2));
  EXPECT_EQ(at(40, 50), (std::vector<uint8_t>{255, 255, 255}));
  const Tensor with_text = viz::plot_embedding(pts, {}, {"a", "b", "c"}, o);
  const auto t = with_text.to_vector<uint8_t>();
  int64_t black = 0;
  for (size_t k = 0; k < t.size(); k += 3) black += t[k] == 0 && t[k + 1] == 0 && t[k + 2] == 0;
  EXPECT_GT(black, 10);  // the three letters
  expect_error([&] { viz::plot_embedding(pts, {0}); }, {"1 labels for 3 points"});
}

}  // namespace
