// TensorLayer's plain stacked Seq2seq and the decodings both Seq2seq forms offer
// (nn/zoo/seq2seq.hpp): beam search against every sequence scored by teacher forcing, top-k
// sampling's draws against the softmax it samples from, greedy decoding against the teacher-forced
// argmax of its own prefix, the plain model's parameters, gradients and a task it learns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "strata/nn/zoo/seq2seq.hpp"
#include "strata/strata.hpp"
#include "support/expect_error.hpp"

namespace strata {
namespace {

using nn::zoo::Seq2seq;
using nn::zoo::Seq2seqLuongAttention;

constexpr int64_t kGo = 0;  // the start token

// The decoder's input for `ids` [B, T]: the start token, then ids without its last column.
Tensor shifted_right(const Tensor& ids) {
  Tensor start = full({ids.size(0), 1}, kGo, kInt64);
  return ids.size(1) == 1 ? start : concat({start, narrow(ids, 1, 0, ids.size(1) - 1)}, 1);
}

std::vector<int64_t> id_values(const Tensor& t) { return t.contiguous().to_vector<int64_t>(); }

struct Scored {
  double score;
  std::vector<int64_t> ids;
};

// Every sequence of length T over the vocabulary, scored by teacher forcing: the sum over t of
// log_softmax(net(src, shifted ids))[t, ids[t]], through the first end token when end >= 0 (then
// only the form with end tokens after it counts). Best first.
template <class Net>
std::vector<Scored> every_sequence(Net& net, const Tensor& src_row, int64_t T, int64_t V, int64_t end,
                                   const Tensor& length = Tensor()) {
  NoGradGuard no_grad;
  int64_t count = 1;
  for (int64_t t = 0; t < T; ++t) count *= V;
  std::vector<int64_t> all(count * T);
  for (int64_t i = 0; i < count; ++i)
    for (int64_t t = 0, rest = i; t < T; ++t, rest /= V) all[i * T + t] = rest % V;
  const Tensor ids = from_vector(all, Shape{count, T}), rows = zeros({count}, kInt64);
  const Tensor src = index_select(src_row, 0, rows);
  const Tensor logits =
      length.defined() ? net(src, shifted_right(ids), index_select(length, 0, rows)) : net(src, shifted_right(ids));
  const std::vector<double> lp = cast(log_softmax(logits, -1), kFloat64).to_vector<double>();
  std::vector<Scored> out;
  for (int64_t i = 0; i < count; ++i) {
    Scored s{0, {all.begin() + i * T, all.begin() + (i + 1) * T}};
    bool canonical = true, ended = false;
    for (int64_t t = 0; t < T; ++t) {
      if (ended) {
        canonical = canonical && s.ids[t] == end;
        continue;
      }
      s.score += lp[(i * T + t) * V + s.ids[t]];
      ended = end >= 0 && s.ids[t] == end;
    }
    if (canonical) out.push_back(s);
  }
  std::sort(out.begin(), out.end(), [](const Scored& a, const Scored& b) { return a.score > b.score; });
  return out;
}

// With beam_width >= V^(T-1) no prefix is ever dropped: the beams are the best sequences overall.
template <class Net>
void expect_exact_beams(Net& net, const Tensor& src, int64_t V, int64_t end, const Tensor& lengths = Tensor()) {
  const int64_t T = 3, K = V * V;
  const nn::zoo::BeamSearchResult r = net.beam_search(src, T, kGo, {.beam_width = K, .end_token = end}, lengths);
  ASSERT_EQ(r.ids.shape(), Shape({src.size(0), K, T}));
  ASSERT_EQ(r.scores.shape(), Shape({src.size(0), K}));
  const std::vector<int64_t> ids = r.ids.to_vector<int64_t>();
  const std::vector<float> scores = r.scores.to_vector<float>();
  for (int64_t b = 0; b < src.size(0); ++b) {
    const std::vector<Scored> want =
        every_sequence(net, narrow(src, 0, b, 1), T, V, end, lengths.defined() ? narrow(lengths, 0, b, 1) : Tensor());
    for (int64_t k = 0; k < K; ++k) {
      const std::vector<int64_t> got(ids.begin() + (b * K + k) * T, ids.begin() + (b * K + k + 1) * T);
      EXPECT_NEAR(scores[b * K + k], want[k].score, 1e-4) << "source " << b << " beam " << k;
      EXPECT_EQ(got, want[k].ids) << "source " << b << " beam " << k;
    }
  }
}

// Greedy decoding emits, at every step, the teacher-forced argmax given its own prefix.
template <class Net>
void expect_greedy_is_argmax_of_its_prefix(Net& net, const Tensor& src) {
  const Tensor ids = net.infer(src, 5, kGo);
  NoGradGuard no_grad;
  EXPECT_EQ(id_values(argmax(net(src, shifted_right(ids)), -1)), id_values(ids));
  // Beam search with one beam is greedy decoding.
  EXPECT_EQ(id_values(select(net.beam_search(src, 5, kGo, {.beam_width = 1}).ids, 1, 0)), id_values(ids));
  // top_k = 1 draws nothing: greedy again.
  EXPECT_EQ(id_values(net.sample(src, 5, kGo, {.top_k = 1})), id_values(ids));
}

// Sampled tokens lie in the top k of their step's teacher-forced logits; a seed repeats them.
template <class Net>
void expect_samples_within_top_k(Net& net, const Tensor& src, int64_t k) {
  Generator a(17), b(17);
  const Tensor ids = net.sample(src, 6, kGo, {.top_k = k, .generator = &a});
  EXPECT_EQ(id_values(ids), id_values(net.sample(src, 6, kGo, {.top_k = k, .generator = &b})));
  NoGradGuard no_grad;
  const std::vector<int64_t> drawn = id_values(ids), top = id_values(topk(net(src, shifted_right(ids)), k, -1).indices);
  for (size_t i = 0; i < drawn.size(); ++i)  // top: [B, T, k]
    EXPECT_NE(std::find(top.begin() + i * k, top.begin() + (i + 1) * k, drawn[i]), top.begin() + (i + 1) * k)
        << "step " << i << ": token " << drawn[i] << " is not in the top " << k;
}

TEST(Seq2seqDecodingTest, BeamSearchFindsTheBestSequencesOfBothForms) {
  manual_seed(3);
  const int64_t V = 4;
  Seq2seq plain(V, 5, 6, {.cell = nn::CellKind::gru, .num_layers = 2});
  Seq2seqLuongAttention luong(V, 5, 6);
  const Tensor src = randint(1, V, {2, 4});
  for (int64_t end : {int64_t{-1}, int64_t{3}}) {
    expect_exact_beams(plain, src, V, end);
    expect_exact_beams(luong, src, V, end);
  }
  // A right-padded source decodes as the source alone.
  const Tensor lengths = from_vector<int64_t>({2, 4});
  expect_exact_beams(luong, src, V, -1, lengths);
  const auto padded = luong.beam_search(src, 3, kGo, {.beam_width = 3}, lengths);
  const auto alone = luong.beam_search(narrow(src, 1, 0, 2), 3, kGo, {.beam_width = 3});
  EXPECT_EQ(id_values(select(padded.ids, 0, 0)), id_values(select(alone.ids, 0, 0)));
}

TEST(Seq2seqDecodingTest, FinishedBeamsKeepTheirScoreAndRepeatTheEndToken) {
  manual_seed(4);
  Seq2seq net(5, 4, 6);
  const Tensor src = randint(1, 5, {3, 3});
  const nn::zoo::BeamSearchResult r = net.beam_search(src, 6, kGo, {.beam_width = 5, .end_token = 2});
  const std::vector<int64_t> ids = r.ids.to_vector<int64_t>();
  const std::vector<float> scores = r.scores.to_vector<float>();
  for (int64_t n = 0; n < 15; ++n) {
    const auto first = std::find(ids.begin() + n * 6, ids.begin() + (n + 1) * 6, int64_t{2});
    EXPECT_TRUE(std::all_of(first, ids.begin() + (n + 1) * 6, [](int64_t v) { return v == 2; })) << n;
    if (n % 5 > 0) EXPECT_LE(scores[n], scores[n - 1]) << "beams best first";
  }
  // More beams than sequences: the rows beyond them score -inf.
  const nn::zoo::BeamSearchResult few = net.beam_search(src, 1, kGo, {.beam_width = 7});
  EXPECT_TRUE(std::isinf(few.scores.to_vector<float>()[5]));
  EXPECT_TRUE(std::isfinite(few.scores.to_vector<float>()[4]));
}

TEST(Seq2seqDecodingTest, GreedyDecodingIsTheArgmaxOfItsPrefix) {
  manual_seed(5);
  Seq2seq plain(7, 5, 8, {.num_layers = 3});
  Seq2seqLuongAttention luong(7, 5, 8, {.num_layers = 2});
  const Tensor src = randint(1, 7, {4, 5});
  expect_greedy_is_argmax_of_its_prefix(plain, src);
  expect_greedy_is_argmax_of_its_prefix(luong, src);
  EXPECT_EQ(luong.attention_weights().shape(), Shape({4, 5, 5}));  // from sample, the last call
}

TEST(Seq2seqDecodingTest, TopKSamplingDrawsOnlyTheTopK) {
  manual_seed(6);
  Seq2seq plain(8, 5, 8, {.cell = nn::CellKind::gru});
  Seq2seqLuongAttention luong(8, 5, 8);
  const Tensor src = randint(1, 8, {5, 4});
  for (int64_t k : {2, 3}) {
    expect_samples_within_top_k(plain, src, k);
    expect_samples_within_top_k(luong, src, k);
  }
  // The whole vocabulary (top_k = 0) gives ids of it.
  const Tensor any_id = luong.sample(src, 4, kGo);
  EXPECT_GE(amin(any_id).item<int64_t>(), 0);
  EXPECT_LT(amax(any_id).item<int64_t>(), 8);
}

// The first token's frequencies over 4000 draws match softmax(top-3 logits / 0.7) and 0 elsewhere.
TEST(Seq2seqDecodingTest, TopKFrequenciesFollowTheTemperedSoftmax) {
  manual_seed(7);
  const int64_t V = 6, draws = 4000;
  Seq2seq net(V, 4, 6);
  {
    NoGradGuard no_grad;  // spread the logits so that the top three differ clearly
    for (Tensor w : net.trainable_weights()) copy_(w, w * 4.0);
  }
  const Tensor src_row = randint(1, V, {1, 3});
  std::vector<double> logits;
  {
    NoGradGuard no_grad;
    logits = cast(net(src_row, full({1, 1}, kGo, kInt64)), kFloat64).to_vector<double>();
  }
  std::vector<int64_t> order(V);
  for (int64_t v = 0; v < V; ++v) order[v] = v;
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return logits[a] > logits[b]; });
  std::vector<double> want(V, 0.0);
  double total = 0;
  for (int i = 0; i < 3; ++i) total += want[order[i]] = std::exp((logits[order[i]] - logits[order[0]]) / 0.7);
  for (double& p : want) p /= total;
  Generator gen(11);
  const Tensor src = index_select(src_row, 0, zeros({draws}, kInt64));
  const std::vector<int64_t> got =
      net.sample(src, 1, kGo, {.top_k = 3, .temperature = 0.7, .generator = &gen}).to_vector<int64_t>();
  for (int64_t v = 0; v < V; ++v) {
    const double frequency = static_cast<double>(std::count(got.begin(), got.end(), v)) / draws;
    EXPECT_NEAR(frequency, want[v], 0.03) << "token " << v;
  }
}

TEST(Seq2seqDecodingTest, PlainSeq2seqShapesWeightsAndParameters) {
  const int64_t v = 11, e = 7, h = 9;
  for (nn::CellKind cell : {nn::CellKind::lstm, nn::CellKind::gru}) {
    Seq2seq net(v, e, h, {.cell = cell, .num_layers = 2}, "chat");
    const Tensor logits = net(randint(1, v, {3, 4}), randint(0, v, {3, 5}));
    EXPECT_EQ(logits.shape(), Shape({3, 5, v}));
    const auto names = net.named_weights();
    ASSERT_EQ(names.size(), 15u);  // embeddings, 2 x 2 layers x 3 RNN weights, output W and b
    EXPECT_EQ(names[0].first, "chat_embedding/embeddings");
    EXPECT_EQ(names[4].first, "chat_encoder/cell_1/kernel");
    EXPECT_EQ(names[13].first, "chat_output/W");
    // A layer of g gates: kernel [in, gH], recurrent kernel [H, gH], bias [gH] ([2, gH] for GRU).
    const int64_t g = cell == nn::CellKind::lstm ? 4 : 3, bias = (cell == nn::CellKind::gru ? 2 : 1) * g * h;
    const int64_t first = e * g * h + h * g * h + bias, second = h * g * h + h * g * h + bias;
    EXPECT_EQ(net.count_params(), v * e + 2 * (first + second) + h * v + v);
    cross_entropy(logits, randint(0, v, {3, 5})).backward();
    for (const auto& [name, w] : names) {
      ASSERT_TRUE(w.grad().defined()) << name;
      EXPECT_GT(amax(abs(w.grad())).item<float>(), 0.0f) << name;
    }
  }
  Seq2seq net(v, e, h);
  testing::expect_error([&] { net(randint(1, v, {2, 3})); }, {"seq2seq", "infer"});
  testing::expect_error([&] { net.infer(randint(1, v, {2, 3}), 3, v); }, {"seq2seq (module): infer", "start_token 11"});
  testing::expect_error(
      [&] {
        net.sample(randint(1, v, {2, 3}), 3, kGo, {.top_k = v + 1});
      },
      {"sample", "top_k must be in [0, 11]", "12"});
  testing::expect_error(
      [&] {
        net.sample(randint(1, v, {2, 3}), 3, kGo, {.temperature = 0});
      },
      {"sample", "temperature"});
  testing::expect_error(
      [&] {
        net.beam_search(randint(1, v, {2, 3}), 3, kGo, {.beam_width = 0});
      },
      {"beam_search", "beam_width", "got 0"});
  testing::expect_error(
      [&] {
        net.beam_search(randint(1, v, {2, 3}), 3, kGo, {.end_token = v});
      },
      {"beam_search", "end_token 11"});
  testing::expect_error([] { Seq2seq(v, e, h, {.num_layers = 0}); }, {"seq2seq_encoder", "num_layers"});
}

// Reversing 3-digit strings through the encoder's final states alone (no attention).
TEST(Seq2seqDecodingTest, PlainSeq2seqLearnsToReverseShortStrings) {
  manual_seed(9);
  const int64_t vocabulary = 6, length = 3;
  Seq2seq net(vocabulary, 16, 32, {.num_layers = 2});
  net(randint(1, vocabulary, {1, length}), randint(0, vocabulary, {1, length}));  // builds the weights
  optim::Adam adam(net.trainable_weights(), {.lr = 0.01});
  for (int step = 0; step < 400; ++step) {
    const Tensor src = randint(1, vocabulary, {32, length}), target = flip(src, {1});
    adam.zero_grad();
    cross_entropy(net(src, shifted_right(target)), target).backward();
    adam.step();
  }
  const Tensor src = randint(1, vocabulary, {200, length}), target = flip(src, {1});
  net.eval();
  const Tensor greedy = net.infer(src, length, kGo);
  const Tensor best = select(net.beam_search(src, length, kGo, {.beam_width = 3}).ids, 1, 0);
  for (const Tensor& ids : {greedy, best}) {
    const double sequence_accuracy = mean(amin(cast(ids == target, kFloat32), {1})).item<double>();
    EXPECT_GT(sequence_accuracy, 0.9);
  }
}

}  // namespace
}  // namespace strata
