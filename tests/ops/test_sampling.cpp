// Sampling ops (ops/sampling.hpp): the frequencies of many draws from a fixed seed against the
// distribution they should follow (a chi-square bound far in the tail, so only a wrong
// distribution fails), reproducibility from a seed, and the errors of bad arguments.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/expect_error.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

// Pearson's chi-square of the observed ids against expected probabilities p (categories with
// p = 0 must never appear).
double chi_square(const std::vector<int64_t>& ids, const std::vector<double>& p) {
  std::vector<double> count(p.size(), 0);
  for (int64_t id : ids) {
    EXPECT_TRUE(id >= 0 && id < static_cast<int64_t>(p.size())) << id;
    if (id >= 0 && id < static_cast<int64_t>(p.size())) count[id] += 1;
  }
  double chi = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == 0) {
      EXPECT_EQ(count[i], 0) << "category " << i << " has probability 0";
      continue;
    }
    const double e = p[i] * static_cast<double>(ids.size());
    chi += (count[i] - e) * (count[i] - e) / e;
  }
  return chi;
}

// The 0.999 quantiles of chi-square with 1 to 4 degrees of freedom.
double chi_bound(size_t df) { return std::vector<double>{10.83, 13.82, 16.27, 18.47}.at(df - 1); }

std::vector<double> softmax_of(const std::vector<double>& x, double temperature) {
  std::vector<double> p;
  double z = 0;
  for (double v : x) z += std::exp(v / temperature);
  for (double v : x) p.push_back(std::exp(v / temperature) / z);
  return p;
}

TEST(SamplingTest, MultinomialFollowsUnnormalisedWeights) {
  Generator gen(11);
  Tensor w = tensor({1.0, 2.0, 0.0, 3.0, 4.0}, {5});  // sums to 10, one impossible category
  std::vector<int64_t> ids = multinomial(w, 20000, true, &gen).to_vector<int64_t>();
  ASSERT_EQ(ids.size(), 20000u);
  EXPECT_LT(chi_square(ids, {0.1, 0.2, 0.0, 0.3, 0.4}), chi_bound(3));
}

TEST(SamplingTest, MultinomialRowsAreIndependentAndSeeded) {
  Tensor p = tensor({0.9f, 0.1f, 0.2f, 0.8f}, {2, 2});
  Generator a(3), b(3);
  Tensor x = multinomial(p, 5000, true, &a);
  EXPECT_EQ(x.shape(), (Shape{2, 5000}));
  EXPECT_EQ(x.dtype(), kInt64);
  EXPECT_EQ(x.to_vector<int64_t>(), multinomial(p, 5000, true, &b).to_vector<int64_t>());
  std::vector<int64_t> all = x.to_vector<int64_t>();
  EXPECT_LT(chi_square({all.begin(), all.begin() + 5000}, {0.9, 0.1}), chi_bound(1));
  EXPECT_LT(chi_square({all.begin() + 5000, all.end()}, {0.2, 0.8}), chi_bound(1));
}

TEST(SamplingTest, MultinomialWithoutReplacementDrawsEachOnce) {
  Generator gen(4);
  std::vector<int64_t> ids = multinomial(tensor({0.1, 0.0, 0.5, 0.4}, {4}), 3, false, &gen).to_vector<int64_t>();
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<int64_t>{0, 2, 3}));
  // The first draw follows the weights: over many rows, id 2 comes first about half the time.
  Tensor rows = tensor({0.1, 0.0, 0.5, 0.4}, {1, 4}).expand({4000, 4}).contiguous();
  std::vector<int64_t> firsts;
  std::vector<int64_t> drawn = multinomial(rows, 2, false, &gen).to_vector<int64_t>();
  for (size_t r = 0; r < drawn.size(); r += 2) {
    EXPECT_NE(drawn[r], drawn[r + 1]);
    firsts.push_back(drawn[r]);
  }
  EXPECT_LT(chi_square(firsts, {0.1, 0.0, 0.5, 0.4}), chi_bound(2));
}

TEST(SamplingTest, CategoricalFromLogitsWithTemperature) {
  const std::vector<double> logits = {0.5, -1.0, 1.5, 0.0};
  Tensor x = from_vector(logits, {1, 4}).expand({20000, 4}).contiguous();
  for (double t : {1.0, 0.5, 2.0}) {
    Generator gen(5);
    Tensor ids = sample_categorical(x, t, &gen);
    EXPECT_EQ(ids.shape(), (Shape{20000}));
    EXPECT_LT(chi_square(ids.to_vector<int64_t>(), softmax_of(logits, t)), chi_bound(3)) << "temperature " << t;
    // The bound has power: the same draws are far from the distribution of another temperature.
    EXPECT_GT(chi_square(ids.to_vector<int64_t>(), softmax_of(logits, t * 1.5)), 10 * chi_bound(3));
  }
  Generator gen(6);
  EXPECT_EQ(sample_categorical(from_vector(logits, {4}), 1.0, &gen).dim(), 0);
}

TEST(SamplingTest, TopKSamplesOnlyAmongTheBest) {
  const std::vector<double> logits = {0.2, 2.0, -1.0, 1.0, 0.9};
  Tensor x = from_vector(logits, {1, 5}).expand({20000, 5}).contiguous();
  Generator gen(7);
  std::vector<int64_t> ids = sample_top_k(x, 3, 0.7, &gen).to_vector<int64_t>();
  // The three best are ids 1, 3, 4; their renormalised softmax at temperature 0.7.
  std::vector<double> best = softmax_of({2.0, 1.0, 0.9}, 0.7);
  EXPECT_LT(chi_square(ids, {0, best[0], 0, best[1], best[2]}), chi_bound(2));
  // k = 1 is greedy.
  Tensor greedy = sample_top_k(tensor({0.2, 2.0, -1.0}, {3}), 1, 1.0, &gen);
  EXPECT_EQ(greedy.dim(), 0);
  EXPECT_EQ(greedy.item<int64_t>(), 1);
}

TEST(SamplingTest, BadArgumentsAreClearErrors) {
  using testing::expect_error;
  expect_error([] { multinomial(tensor({0.5, -0.1, 0.6}, {3}), 1); }, {"multinomial", "finite and >= 0", "-0.1", "category 1"});
  expect_error([] { multinomial(tensor({0.0, 0.0}, {1, 2}), 1); }, {"multinomial", "row 0", "sums to 0"});
  expect_error([] { multinomial(tensor({NAN, 1.0}, {2}), 1); }, {"multinomial", "finite"});
  expect_error([] { multinomial(tensor({0.5, 0.0, 0.5}, {3}), 3, false); }, {"without replacement", "2 non-zero"});
  expect_error([] { multinomial(tensor({0.5, 0.5}, {2}), 0); }, {"num_samples", "0"});
  expect_error([] { multinomial(zeros({2, 2, 2}), 1); }, {"multinomial", "[C] or [N, C]"});
  expect_error([] { sample_top_k(tensor({1.0, 2.0}, {2}), 3); }, {"sample_top_k", "k must be in [1, 2]", "3"});
  expect_error([] { sample_top_k(tensor({1.0, 2.0}, {2}), 0); }, {"sample_top_k", "got 0"});
  expect_error([] { sample_categorical(tensor({1.0, 2.0}, {2}), 0.0); }, {"sample_categorical", "temperature"});
  expect_error([] { sample_top_k(tensor({1.0, 2.0}, {2}), 1, -1.0); }, {"sample_top_k", "temperature"});
}

}  // namespace
}  // namespace strata
