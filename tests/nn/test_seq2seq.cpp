// Seq2seq with Luong attention (nn/zoo/seq2seq.hpp): shapes, gradients to every weight,
// attention weights that are distributions, padded sources, the parameter count from its
// formula, and a tiny task (reversing digit strings) learned well enough for greedy decoding
// to get it right.
#include <gtest/gtest.h>

#include "support/expect_error.hpp"
#include "strata/nn/zoo/seq2seq.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

using nn::zoo::LuongScore;
using nn::zoo::Seq2seqLuongAttention;

constexpr int64_t kStart = 0;  // the start token; digits are 1 .. vocabulary - 1

// Random digit strings [batch, length] and their reversals.
std::pair<Tensor, Tensor> reversal_batch(int64_t batch, int64_t length, int64_t vocabulary) {
  Tensor src = randint(1, vocabulary, {batch, length});
  return {src, flip(src, {1})};
}

// The targets shifted right behind the start token: what teacher forcing feeds the decoder.
Tensor decoder_input(const Tensor& target) {
  Tensor start = full({target.size(0), 1}, kStart, kInt64);
  return concat({start, narrow(target, 1, 0, target.size(1) - 1)}, 1);
}

TEST(Seq2seqTest, ShapesInTrainingAndGreedyDecoding) {
  Seq2seqLuongAttention net(10, 8, 12);
  Tensor src = randint(1, 10, {3, 6}), dec_in = randint(0, 10, {3, 4});
  EXPECT_EQ(net(src, dec_in).shape(), Shape({3, 4, 10}));
  EXPECT_EQ(net.attention_weights().shape(), Shape({3, 4, 6}));
  Tensor ids = net.infer(src, 7, kStart);
  EXPECT_EQ(ids.shape(), Shape({3, 7}));
  EXPECT_EQ(ids.dtype(), kInt64);
  EXPECT_EQ(net.attention_weights().shape(), Shape({3, 7, 6}));
  testing::expect_error([&] { net(src); }, {"seq2seq", "infer"});
  testing::expect_error([&] { net.infer(src, 3, 10); }, {"start_token 10"});
}

TEST(Seq2seqTest, AttentionWeightsAreDistributionsOverTheSource) {
  for (LuongScore score : {LuongScore::dot, LuongScore::general}) {
    Seq2seqLuongAttention net(10, 8, 12, {.score = score});
    Tensor src = randint(1, 10, {4, 5});
    net(src, randint(0, 10, {4, 3}));
    const Tensor& w = net.attention_weights();
    EXPECT_TRUE(allclose(sum(w, {-1}), ones({4, 3}), 1e-5, 1e-6));
    EXPECT_GE(amin(w).item<float>(), 0.0f);
    net.infer(src, 4, kStart);
    EXPECT_TRUE(allclose(sum(net.attention_weights(), {-1}), ones({4, 4}), 1e-5, 1e-6));
  }
}

// A right-padded source with its length computes what the source alone does.
TEST(Seq2seqTest, PaddingBehindSourceLengthsChangesNothing) {
  Seq2seqLuongAttention net(10, 8, 12);
  net.eval();
  Tensor a = randint(1, 10, {1, 3}), b = randint(1, 10, {1, 5}), dec_in = randint(0, 10, {2, 4});
  Tensor src = concat({concat({a, randint(1, 10, {1, 2})}, 1), b}, 0);  // a padded with noise
  Tensor lengths = from_vector<int64_t>({3, 5});
  Tensor logits = net(src, dec_in, lengths);
  EXPECT_TRUE(allclose(narrow(narrow(net.attention_weights(), 0, 0, 1), 2, 3, 2), zeros({1, 4, 2}), 0, 0));
  EXPECT_TRUE(allclose(narrow(logits, 0, 0, 1), net(a, narrow(dec_in, 0, 0, 1)), 1e-5, 1e-6));
  EXPECT_TRUE(allclose(narrow(logits, 0, 1, 1), net(b, narrow(dec_in, 0, 1, 1)), 1e-5, 1e-6));
  Tensor ids = net.infer(src, 4, kStart, lengths);
  EXPECT_TRUE(allclose(cast(narrow(ids, 0, 0, 1), kFloat32), cast(net.infer(a, 4, kStart), kFloat32), 0, 0));
}

TEST(Seq2seqTest, GradientReachesEveryWeight) {
  for (nn::CellKind cell : {nn::CellKind::lstm, nn::CellKind::gru}) {
    Seq2seqLuongAttention net(10, 8, 12, {.cell = cell});
    auto [src, target] = reversal_batch(4, 5, 10);
    cross_entropy(net(src, decoder_input(target)), target).backward();
    const auto weights = net.named_weights();
    EXPECT_EQ(weights.size(), 11u);  // embeddings, 2 x 3 RNN weights, score W, W_c, output W and b
    for (const auto& [name, w] : weights) {
      ASSERT_TRUE(w.grad().defined()) << name;
      EXPECT_GT(amax(abs(w.grad())).item<float>(), 0.0f) << name;
    }
  }
}

TEST(Seq2seqTest, ParameterCountFollowsTheFormula) {
  const int64_t v = 11, e = 7, h = 9;
  auto count = [&](nn::CellKind cell, LuongScore score) {
    Seq2seqLuongAttention net(v, e, h, {.cell = cell, .score = score});
    net(randint(1, v, {2, 4}), randint(0, v, {2, 3}));
    return net.count_params();
  };
  // A layer of g gates: kernel [E, gH], recurrent kernel [H, gH], bias [gH] ([2, gH] for GRU).
  const int64_t lstm = e * 4 * h + h * 4 * h + 4 * h, gru = e * 3 * h + h * 3 * h + 2 * 3 * h;
  const int64_t shared = v * e + 2 * h * h + h * v + v;  // embedding, W_c, output
  EXPECT_EQ(count(nn::CellKind::lstm, LuongScore::general), shared + 2 * lstm + h * h);
  EXPECT_EQ(count(nn::CellKind::gru, LuongScore::dot), shared + 2 * gru);
}

// Reversal puts output t at input S - 1 - t, which attention reads directly. 600 Adam steps
// (about a second on two cores) suffice.
TEST(Seq2seqTest, LearnsToReverseDigitStrings) {
  manual_seed(7);
  const int64_t vocabulary = 10, length = 5;
  Seq2seqLuongAttention net(vocabulary, 16, 32);
  net(randint(1, vocabulary, {1, length}), randint(0, vocabulary, {1, length}));  // builds the weights
  optim::Adam adam(net.trainable_weights(), {.lr = 0.005});
  for (int step = 0; step < 600; ++step) {
    auto [src, target] = reversal_batch(32, length, vocabulary);
    adam.zero_grad();
    cross_entropy(net(src, decoder_input(target)), target).backward();
    adam.step();
  }
  auto [src, target] = reversal_batch(200, length, vocabulary);
  net.eval();
  Tensor ids = net.infer(src, length, kStart);
  const Tensor correct = cast(ids == target, kFloat32);
  const double token_accuracy = mean(correct).item<double>();
  const double sequence_accuracy = mean(amin(correct, {1})).item<double>();  // every token right
  // Seeds 1, 2, 3, 5, 7 and 8 reached at least 0.988 and 0.96.
  EXPECT_GT(token_accuracy, 0.95);
  EXPECT_GT(sequence_accuracy, 0.9);
}

}  // namespace
}  // namespace strata
