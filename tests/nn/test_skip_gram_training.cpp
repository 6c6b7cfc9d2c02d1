// The fused skip-gram / negative-sampling update against the same loss differentiated by
// autograd (float64), and the Hogwild trainer on a corpus whose two word groups never meet.
#include <gtest/gtest.h>

#include <cmath>

#include "nn/layer_check.hpp"
#include "strata/nn/layers/embedding.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;

// The step on random [V, E] tables against -log σ(o_context·e_centre) - Σ_n log σ(-o_n·e_centre)
// differentiated by autograd in float64; `spread` scales the output table, so the logits reach
// across the sigmoid table's range.
void expect_one_gradient_step(int64_t vocab, int64_t dim, int64_t centre, int64_t context,
                              const std::vector<int64_t>& negatives, double spread) {
  Tensor emb = randn({vocab, dim}) / std::sqrt(static_cast<double>(dim)), out = randn({vocab, dim}) * spread;
  const double alpha = 0.1;
  Tensor e64 = emb.to(kFloat64).detach().requires_grad_(true), o64 = out.to(kFloat64).detach().requires_grad_(true);
  std::vector<int64_t> targets{context};
  targets.insert(targets.end(), negatives.begin(), negatives.end());
  std::vector<double> signs(targets.size(), -1.0);
  signs[0] = 1.0;
  Tensor v = index_select(e64, 0, tensor({centre}));
  Tensor u = index_select(o64, 0, from_vector(targets));
  Tensor logits = sum(u * v, {-1}) * from_vector(signs);
  Tensor loss = -sum(log(sigmoid(logits)));
  loss.backward();
  const Tensor want_emb = (e64 - e64.grad() * alpha).to(kFloat32), want_out = (o64 - o64.grad() * alpha).to(kFloat32);

  const double got_loss = nn::skip_gram_step(emb, out, centre, context, negatives, alpha);
  EXPECT_NEAR(got_loss, loss.item<double>(), 1e-4);
  EXPECT_TRUE(allclose(emb, want_emb, 1e-5, 1e-5));
  EXPECT_TRUE(allclose(out, want_out, 1e-5, 1e-5));
}

TEST(SkipGramTraining, StepIsOneGradientStepOfTheNegativeSamplingLoss) {
  manual_seed(3);
  expect_one_gradient_step(6, 4, 2, 4, {0, 5}, 0.5);  // rows shorter than a vector block
}

// E = 100 (word2vec's size): six 16-float blocks and a tail of 4; logits up to about ±6, where an
// uninterpolated table (word2vec.c's) would be off by 1e-3 in σ.
TEST(SkipGramTraining, StepIsExactOnVectorBlocksAndAcrossTheSigmoidRange) {
  manual_seed(5);
  expect_one_gradient_step(40, 100, 7, 3, {11, 0, 39, 25, 18, 30, 2, 9}, 2.0);
  expect_one_gradient_step(40, 37, 39, 0, {1, 38}, 1.0);
}

TEST(SkipGramTraining, BadTablesAndIdsAreErrors) {
  Tensor emb = zeros({5, 3}), out = zeros({5, 3}), other = zeros({4, 3});
  expect_error([&] { nn::skip_gram_step(emb, out, 5, 0, {}, 0.1); }, {"skip_gram_step", "ids 5 and 0", "[0, 5)"});
  expect_error([&] { nn::skip_gram_step(emb, out, 0, 1, {-1}, 0.1); }, {"negative id -1"});
  expect_error([&] { nn::skip_gram_step(emb, other, 0, 1, {}, 0.1); }, {"same [V, E] shape"});
  expect_error([&] { nn::skip_gram_step(emb, emb, 0, 1, {}, 0.1); }, {"not views of one"});
  expect_error([&] { nn::train_skip_gram(emb, out, {0, 7}, {1, 1, 1, 1, 1}); }, {"corpus id 7"});
  expect_error([&] { nn::train_skip_gram(emb, out, {0, 1}, {1, 1}); }, {"2 counts", "vocabulary of 5"});
  expect_error([&] { nn::train_skip_gram(emb, out, {0, 1}, {1, -1, 1, 1, 1}); }, {"negative count, -1"});
  expect_error([&] { nn::train_skip_gram(emb, out, {0, 1}, {0, 0, 0, 0, 0}); }, {"counts are all zero"});
}

// Sentences use words 0-4 or words 5-9, never both; id 10 ends each sentence. After training,
// a word's nearest neighbours (cosine of input vectors) are in its own group.
TEST(SkipGramTraining, WordsThatShareContextsEndUpClose) {
  manual_seed(1);
  std::vector<int64_t> corpus;
  uint64_t state = 12345;
  auto next = [&] { return (state = state * 6364136223846793005ULL + 1442695040888963407ULL) >> 33; };
  for (int s = 0; s < 600; ++s) {
    const int64_t base = (s % 2) * 5;
    for (int w = 0; w < 8; ++w) corpus.push_back(base + static_cast<int64_t>(next() % 5));
    corpus.push_back(10);
  }
  std::vector<int64_t> counts(11, 0);
  for (int64_t id : corpus) ++counts[id];
  Tensor emb = (rand({11, 16}) - 0.5) / 16.0, out = zeros({11, 16});
  const nn::SkipGramStats stats = nn::train_skip_gram(
      emb, out, corpus, counts, {.window = 3, .negative = 4, .sample = 0, .epochs = 5, .threads = 2, .boundary = 10});
  EXPECT_EQ(stats.words, static_cast<int64_t>(corpus.size()) * 5);
  EXPECT_EQ(stats.trained, 600 * 8 * 5);  // no subsampling; the boundary is never trained
  EXPECT_GT(stats.mean_loss, 0);
  const auto e = emb.to_vector<float>();
  auto cosine = [&](int a, int b) {
    double ab = 0, aa = 0, bb = 0;
    for (int k = 0; k < 16; ++k) {
      ab += e[a * 16 + k] * e[b * 16 + k];
      aa += e[a * 16 + k] * e[a * 16 + k];
      bb += e[b * 16 + k] * e[b * 16 + k];
    }
    return ab / std::sqrt(aa * bb);
  };
  for (int a = 0; a < 10; ++a)
    for (int b = 0; b < 10; ++b)
      if (a != b && a / 5 == b / 5)
        for (int c = 0; c < 10; ++c)
          if (c / 5 != a / 5) EXPECT_GT(cosine(a, b), cosine(a, c)) << a << " " << b << " " << c;
}

}  // namespace
}  // namespace strata
