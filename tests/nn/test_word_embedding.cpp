#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "nn/layer_check.hpp"
#include "strata/nn/layers/embedding.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;
using testing_nn::expect_gradcheck;

TEST(WordEmbeddingTest, AverageEmbeddingMeansTheNonPadWords) {
  nn::AverageEmbedding avg(6, 3, /*pad_value=*/0, "avg");
  Tensor ids = tensor({1, 2, 0, 0, 5, 5, 3, 0, 0, 0, 0, 0}, {3, 4});
  Tensor y = avg(ids);
  ASSERT_EQ(y.shape(), Shape({3, 3}));
  auto e = avg.embeddings.to_vector<float>();
  auto row = [&](int64_t id, int64_t c) { return static_cast<double>(e[id * 3 + c]); };
  auto got = y.to_vector<float>();
  for (int64_t c = 0; c < 3; ++c) {
    EXPECT_NEAR(got[0 * 3 + c], (row(1, c) + row(2, c)) / 2, 1e-6);
    EXPECT_NEAR(got[1 * 3 + c], (2 * row(5, c) + row(3, c)) / 3, 1e-6);
    EXPECT_EQ(got[2 * 3 + c], 0.0f);  // all padding
  }
  sum(y).backward();
  // Each word's row gets 1 / (its sentence's length) per occurrence; the pad row nothing.
  Tensor g = avg.embeddings.grad();
  EXPECT_NEAR(select(g, 0, 0).sum().item<double>(), 0.0, 1e-6);
  EXPECT_NEAR(select(select(g, 0, 5), 0, 0).item<double>(), 2.0 / 3, 1e-5);
  EXPECT_NEAR(select(select(g, 0, 1), 0, 2).item<double>(), 0.5, 1e-5);
  // A pad value outside the vocabulary.
  nn::AverageEmbedding outside(6, 3, -1);
  Tensor y2 = outside(tensor({4, -1, -1}, {1, 3}));
  EXPECT_TRUE(allclose(y2, narrow(outside.embeddings, 0, 4, 1), 1e-6, 1e-6));
  expect_error([&] { avg(ones({2, 3})); }, {"avg (averageembedding)", "integer ids", "float32"});
  expect_error([&] { avg(tensor({1, 2})); }, {"avg", "[batch, seq]", "[2]"});
}

double log_sigmoid(double z) { return z >= 0 ? -std::log1p(std::exp(-z)) : z - std::log1p(std::exp(z)); }

// Both losses written out for one fixed sample: true logits first (target 1/T), then the
// sampled ones (target 0) unless they hit a label and hits are removed.
struct LoopLosses {
  double nce = 0, softmax = 0;
};
LoopLosses loop_losses(const Tensor& W, const Tensor& bias, const std::vector<int64_t>& labels, int64_t T,
                       const Tensor& x, const std::vector<int64_t>& sampled, const std::vector<double>& true_expected,
                       const std::vector<double>& sampled_expected, bool remove_hits) {
  const int64_t B = x.size(0), E = x.size(1);
  auto w = W.to_vector<double>(), b = bias.to_vector<double>(), xv = x.to_vector<double>();
  auto logit = [&](int64_t n, int64_t c, double expected) {
    double z = b[c] - std::log(expected);
    for (int64_t e = 0; e < E; ++e) z += xv[n * E + e] * w[c * E + e];
    return z;
  };
  LoopLosses out;
  for (int64_t n = 0; n < B; ++n) {
    std::vector<double> z;
    std::vector<double> target;
    for (int64_t t = 0; t < T; ++t) {
      z.push_back(logit(n, labels[n * T + t], true_expected[n * T + t]));
      target.push_back(1.0 / T);
    }
    for (size_t j = 0; j < sampled.size(); ++j) {
      bool hit = false;
      for (int64_t t = 0; t < T; ++t) hit = hit || labels[n * T + t] == sampled[j];
      if (remove_hits && hit) continue;
      z.push_back(logit(n, sampled[j], sampled_expected[j]));
      target.push_back(0.0);
    }
    double mx = *std::max_element(z.begin(), z.end()), lse = 0;
    for (double v : z) lse += std::exp(v - mx);
    lse = mx + std::log(lse);
    for (size_t i = 0; i < z.size(); ++i) {
      out.nce -= target[i] * log_sigmoid(z[i]) + (1 - target[i]) * log_sigmoid(-z[i]);
      out.softmax -= target[i] * (z[i] - lse);
    }
  }
  out.nce /= B;
  out.softmax /= B;
  return out;
}

TEST(WordEmbeddingTest, SampledLossesMatchAnIndependentComputation) {
  Generator gen(21);
  const int64_t V = 7, E = 3;
  Tensor W = uniform({V, E}, -1, 1, kFloat64, &gen), b = uniform({V}, -1, 1, kFloat64, &gen),
         x = uniform({2, E}, -1, 1, kFloat64, &gen);
  std::vector<int64_t> labels = {1, 4, 2, 6}, sampled = {0, 4, 5};  // 4 hits example 0's labels
  std::vector<double> te = {0.3, 0.2, 0.25, 0.1}, se = {0.5, 0.2, 0.15};
  nn::CandidateSample s{from_vector(sampled), from_vector(te, {2, 2}), from_vector(se)};
  Tensor lab = from_vector(labels, {2, 2});
  for (bool remove : {false, true}) {
    LoopLosses ref = loop_losses(W, b, labels, 2, x, sampled, te, se, remove);
    EXPECT_NEAR(nn::nce_loss(W, b, lab, x, s, remove).item<double>(), ref.nce, 1e-12) << remove;
    EXPECT_NEAR(nn::sampled_softmax_loss(W, b, lab, x, s, remove).item<double>(), ref.softmax, 1e-12) << remove;
  }
  // One true class per example as a [B] vector; sum and none reductions.
  Tensor lab1 = from_vector(std::vector<int64_t>{3, 6});
  nn::CandidateSample s1{from_vector(sampled), from_vector(std::vector<double>{0.4, 0.1}, {2, 1}), from_vector(se)};
  LoopLosses ref1 = loop_losses(W, b, {3, 6}, 1, x, sampled, {0.4, 0.1}, se, true);
  EXPECT_NEAR(nn::sampled_softmax_loss(W, b, lab1, x, s1, true, Reduction::sum).item<double>(), 2 * ref1.softmax,
              1e-12);
  EXPECT_EQ(nn::nce_loss(W, b, lab1, x, s1, false, Reduction::none).shape(), Shape({2}));
  expect_error([&] { nn::nce_loss(W, b, lab, x, s1); }, {"nce_loss", "candidate sample", "[2, 2]"});
  expect_error([&] { nn::nce_loss(W, b, lab, ones({2, E}, kFloat64) > 0.5, s); }, {"nce_loss", "inputs"});
}

TEST(WordEmbeddingTest, SampledLossGradients) {
  Generator gen(22);
  Tensor lab = from_vector(std::vector<int64_t>{1, 4, 2, 6}, {2, 2});
  nn::CandidateSample s{from_vector(std::vector<int64_t>{0, 4, 5}),
                        from_vector(std::vector<double>{0.3, 0.2, 0.25, 0.1}, {2, 2}),
                        from_vector(std::vector<double>{0.5, 0.2, 0.15})};
  std::vector<Tensor> in = {uniform({7, 3}, -1, 1, kFloat64, &gen), uniform({7}, -1, 1, kFloat64, &gen),
                            uniform({2, 3}, -1, 1, kFloat64, &gen)};
  expect_gradcheck([&](const std::vector<Tensor>& v) { return nn::nce_loss(v[0], v[1], lab, v[2], s); }, in);
  expect_gradcheck([&](const std::vector<Tensor>& v) { return nn::sampled_softmax_loss(v[0], v[1], lab, v[2], s); },
                   in);
}

TEST(WordEmbeddingTest, LogUniformSamplerFollowsZipf) {
  const int64_t V = 10;
  Tensor labels = tensor({0, 9}, {2}).to(kInt64);
  auto p = [&](int64_t k) { return std::log((k + 2.0) / (k + 1.0)) / std::log(V + 1.0); };
  // With replacement: the expected count is num_sampled * p, and frequencies follow p.
  Generator gen(5);
  nn::CandidateSample many = nn::log_uniform_candidates(labels, 20000, V, false, &gen);
  auto ids = many.sampled.to_vector<int64_t>();
  std::vector<int64_t> counts(V, 0);
  for (int64_t k : ids) {
    ASSERT_TRUE(k >= 0 && k < V);
    ++counts[k];
  }
  for (int64_t k : {0, 1, 5, 9}) EXPECT_NEAR(counts[k] / 20000.0, p(k), 0.012) << "class " << k;
  EXPECT_NEAR(many.true_expected.to_vector<double>()[1], 20000 * p(9), 1e-6);
  EXPECT_NEAR(many.sampled_expected.to_vector<double>()[0], 20000 * p(ids[0]), 1e-6);
  // Unique: distinct ids, the same for the same seed; expected counts 1 - (1 - p)^n for one n.
  Generator g1(8), g2(8);
  nn::CandidateSample a = nn::log_uniform_candidates(labels, 6, V, true, &g1),
                      b = nn::log_uniform_candidates(labels, 6, V, true, &g2);
  auto sa = a.sampled.to_vector<int64_t>();
  EXPECT_EQ(sa, b.sampled.to_vector<int64_t>());
  EXPECT_EQ(std::set<int64_t>(sa.begin(), sa.end()).size(), 6u);
  auto ea = a.sampled_expected.to_vector<double>();
  double n = std::log1p(-ea[0]) / std::log1p(-p(sa[0]));
  EXPECT_GE(n, 6 - 1e-9);
  for (size_t i = 0; i < sa.size(); ++i) EXPECT_NEAR(ea[i], 1 - std::pow(1 - p(sa[i]), n), 1e-9);
  expect_error([&] { nn::log_uniform_candidates(labels, 11, V, true); }, {"log_uniform_candidates", "11"});
}

TEST(WordEmbeddingTest, Word2vecLossUsesItsSeededSampler) {
  const int64_t V = 30, E = 4;
  nn::Word2vecEmbedding w2v(V, E, 5, nn::SampledLossKind::nce, /*seed=*/42, "w2v");
  Tensor ids = tensor({3, 7, 1, 0}, {4}).to(kInt64), labels = tensor({4, 8, 2, 1}, {4}).to(kInt64);
  auto [emb, loss] = w2v.with_loss(ids, labels);
  ASSERT_EQ(emb.shape(), Shape({4, E}));
  auto names = w2v.named_weights();
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[1].first, "w2v/nce_weights");
  EXPECT_EQ(w2v.nce_biases.shape(), Shape({V}));
  Generator gen(42);
  nn::CandidateSample s = nn::log_uniform_candidates(labels, 5, V, true, &gen);
  Tensor expected = nn::nce_loss(w2v.nce_weights, w2v.nce_biases, labels, embedding(w2v.embeddings, ids), s);
  EXPECT_NEAR(loss.item<double>(), expected.item<double>(), 1e-6);
  // The next call draws new negatives from the same generator.
  nn::CandidateSample s2 = nn::log_uniform_candidates(labels, 5, V, true, &gen);
  EXPECT_NEAR(w2v.with_loss(ids, labels).second.item<double>(),
              nn::nce_loss(w2v.nce_weights, w2v.nce_biases, labels, embedding(w2v.embeddings, ids), s2).item<double>(),
              1e-6);
  // Plain lookups take ids of any shape.
  EXPECT_TRUE(allclose(w2v(reshape(ids, {2, 2})), reshape(emb, {2, 2, E}), 0, 0));
  // Sampled softmax removes accidental hits.
  nn::Word2vecEmbedding sm(V, E, 5, nn::SampledLossKind::sampled_softmax, 3);
  Tensor l = sm.with_loss(ids, labels).second;
  Generator g3(3);
  nn::CandidateSample s3 = nn::log_uniform_candidates(labels, 5, V, true, &g3);
  EXPECT_NEAR(l.item<double>(),
              nn::sampled_softmax_loss(sm.nce_weights, sm.nce_biases, labels, embedding(sm.embeddings, ids), s3, true)
                  .item<double>(),
              1e-6);
  nn::Word2vecEmbedding plain(V, E, 5, nn::SampledLossKind::none, -1, "plain");
  plain(ids);
  EXPECT_EQ(plain.all_weights().size(), 1u);
  expect_error([&] { plain.with_loss(ids, labels); }, {"plain (word2vecembedding)", "without a loss"});
  expect_error([] { nn::Word2vecEmbedding(10, 4, 11); }, {"num_sampled", "11"});
}

TEST(WordEmbeddingTest, Word2vecTrainingLowersTheLoss) {
  // Skip-gram pairs of a tiny corpus where word i's context is word (i + 1) % V.
  const int64_t V = 12;
  nn::Word2vecEmbedding w2v(V, 8, 4, nn::SampledLossKind::nce, 1);
  std::vector<int64_t> next;
  for (int64_t i = 0; i < V; ++i) next.push_back((i + 1) % V);
  Tensor ids = arange(V), labels = from_vector(next);
  Generator fixed(9);
  nn::CandidateSample s = nn::log_uniform_candidates(labels, 4, V, true, &fixed);
  auto eval_loss = [&] {
    NoGradGuard no_grad;
    return nn::nce_loss(w2v.nce_weights, w2v.nce_biases, labels, w2v(ids), s).item<double>();
  };
  w2v(ids);
  double before = eval_loss();
  for (int step = 0; step < 60; ++step) {
    Tensor loss = w2v.with_loss(ids, labels).second;
    for (Tensor p : w2v.trainable_weights()) p.zero_grad();
    loss.backward();
    NoGradGuard no_grad;
    for (Tensor p : w2v.trainable_weights()) add_(p, p.grad(), -0.5);
  }
  EXPECT_LT(eval_loss(), 0.7 * before);
}

}  // namespace
}  // namespace strata
