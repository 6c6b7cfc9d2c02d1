// Text: vocabularies (ranking, limits, unknown words, save/load), PTB-style corpora, skip-gram
// batches, sequence padding and masks, and the iterate helpers checked against the outputs
// TensorLayer documents for the same small inputs.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "support/expect_error.hpp"
#include "strata/core/factory.hpp"
#include "strata/data/iterate.hpp"
#include "strata/data/sequence.hpp"
#include "strata/data/skip_gram.hpp"
#include "strata/data/text_corpus.hpp"
#include "support/temp_dir.hpp"

using namespace strata;
using namespace strata::data;
using strata::testing::expect_error;

namespace {

std::vector<int64_t> ints(const Tensor& t) { return t.to(kInt64).to_vector<int64_t>(); }

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

class TextTest : public strata::testing::TempDirTest {
 protected:
  void write(const std::string& name, const std::string& text) { std::ofstream(path(name)) << text; }
};

}  // namespace

TEST(Vocabulary, RanksByCountThenAlphabetically) {
  // c x3, a x2, b x2, d x1: ids c, a, b, d, then the unknown word.
  Vocabulary v = Vocabulary::build(split("c a b c d a b c"));
  ASSERT_EQ(v.size(), 5);
  EXPECT_EQ(v.word_ids_to_words({0, 1, 2, 3, 4}), (std::vector<std::string>{"c", "a", "b", "d", "<unk>"}));
  EXPECT_EQ(v.unknown_id(), 4);
  EXPECT_EQ(v.count(0), 3);
  EXPECT_EQ(v.words_to_word_ids(split("d zebra c")), (std::vector<int64_t>{3, 4, 0}));
  expect_error([&] { v.word(5); }, {"word id 5", "5 words"});
}

TEST(Vocabulary, MinCountAndMaxSizeSendWordsToUnknown) {
  const auto words = split("c a b c d a b c e");
  Vocabulary min2 = Vocabulary::build(words, {.min_count = 2});
  EXPECT_EQ(min2.word_ids_to_words({0, 1, 2, 3}), (std::vector<std::string>{"c", "a", "b", "<unk>"}));
  EXPECT_EQ(min2.count(min2.unknown_id()), 2);  // d and e
  // max_size counts the unknown word.
  Vocabulary top3 = Vocabulary::build(words, {.max_size = 3, .unknown = "UNK"});
  EXPECT_EQ(top3.word_ids_to_words({0, 1, 2}), (std::vector<std::string>{"c", "a", "UNK"}));
  EXPECT_EQ(top3.id("b"), 2);
  // A corpus that has the unknown word (PTB) keeps its rank; max_size still holds.
  Vocabulary ptb = Vocabulary::build(split("<unk> <unk> x y y z"), {.max_size = 2});
  EXPECT_EQ(ptb.word_ids_to_words({0, 1}), (std::vector<std::string>{"<unk>", "y"}));
  EXPECT_EQ(ptb.unknown_id(), 0);
  EXPECT_EQ(ptb.count(0), 4);
}

TEST_F(TextTest, VocabularySavesAndLoads) {
  Vocabulary v = Vocabulary::build(split("b a b c"), {.unknown = "?"});
  v.save(path("vocab.txt"));
  std::ifstream in(path("vocab.txt"));
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "b 2\na 1\nc 1\n? 0\n");
  Vocabulary back = Vocabulary::load(path("vocab.txt"), "?");
  EXPECT_EQ(back.size(), 4);
  EXPECT_EQ(back.unknown_id(), 3);
  EXPECT_EQ(back.words_to_word_ids(split("c b nope")), (std::vector<int64_t>{2, 0, 3}));
  // A file without the unknown word gets it last.
  write("plain.txt", "x 5\ny 2\n");
  EXPECT_EQ(Vocabulary::load(path("plain.txt")).word(2), "<unk>");
  write("bad.txt", "x 5\ny two\n");
  expect_error([&] { Vocabulary::load(path("bad.txt")); }, {path("bad.txt"), "line 2", "word count"});
  expect_error([&] { Vocabulary::load(path("none.txt")); }, {path("none.txt")});
}

TEST_F(TextTest, PtbCorpusAddsEosAndMapsUnknownWords) {
  write("ptb.train.txt", " the cat sat \n the dog \n");
  write("ptb.valid.txt", " the bird \n");
  write("ptb.test.txt", "cat\n");
  EXPECT_EQ(read_words(path("ptb.train.txt")), split("the cat sat <eos> the dog <eos>"));
  PtbCorpus c = load_ptb(dir_.string());
  // <eos> x2 and the x2 (alphabetical: <eos> first), then cat, dog, sat, then <unk>.
  EXPECT_EQ(c.train, (std::vector<int64_t>{1, 2, 4, 0, 1, 3, 0}));
  EXPECT_EQ(c.valid, (std::vector<int64_t>{1, 5, 0}));
  EXPECT_EQ(c.test, (std::vector<int64_t>{2, 0}));
  expect_error([&] { read_words(path("missing.txt")); }, {path("missing.txt")});
}

TEST(SkipGram, PairsEachCentreWithDistinctNeighbours) {
  std::vector<int64_t> data(20);
  for (int i = 0; i < 20; ++i) data[i] = 100 + i;
  Generator gen(3);
  // num_skips = 2 * skip_window: every neighbour of each centre, in some order.
  SkipGramBatch b = generate_skip_gram_batch(data, 8, 4, 2, 0, gen);
  ASSERT_EQ(b.labels.shape(), Shape({8, 1}));
  const auto in = ints(b.inputs), lab = ints(b.labels);
  for (int i = 0; i < 2; ++i) {
    const int64_t centre = 100 + 2 + i;  // window [i, i + 4], centre at its middle
    std::multiset<int64_t> got, expected{centre - 2, centre - 1, centre + 1, centre + 2};
    for (int j = 0; j < 4; ++j) {
      EXPECT_EQ(in[i * 4 + j], centre);
      got.insert(lab[i * 4 + j]);
    }
    EXPECT_EQ(got, expected);
  }
  // The window was filled (5 words) then moved once per centre (2): index 7.
  EXPECT_EQ(b.data_index, 7);
  // The next call continues from data[7]: a window 7..9, centres data[8] and data[9].
  SkipGramBatch next = generate_skip_gram_batch(data, 2, 1, 1, b.data_index, gen);
  EXPECT_EQ(ints(next.inputs), (std::vector<int64_t>{108, 109}));
  EXPECT_EQ(next.data_index, 12);
  // Wrapping round the end of the data.
  EXPECT_EQ(ints(generate_skip_gram_batch(data, 2, 2, 1, 19, gen).inputs), (std::vector<int64_t>{100, 100}));
  expect_error([&] { generate_skip_gram_batch(data, 6, 4, 2); }, {"batch_size 6", "multiple of num_skips 4"});
  expect_error([&] { generate_skip_gram_batch(data, 6, 3, 1); }, {"num_skips 3", "2 * skip_window"});
}

TEST(Sequences, PadAndTruncateOnEitherSide) {
  const Sequences s{{1, 2, 3, 4}, {5}, {6, 7}};
  Tensor post = pad_sequences(s, {.maxlen = 3});  // TensorLayer's defaults: pad post, truncate pre
  EXPECT_EQ(post.shape(), Shape({3, 3}));
  EXPECT_EQ(ints(post), (std::vector<int64_t>{2, 3, 4, 5, 0, 0, 6, 7, 0}));
  Tensor pre = pad_sequences(s, {.maxlen = 3, .padding = PadSide::pre, .truncating = PadSide::post, .value = -1});
  EXPECT_EQ(ints(pre), (std::vector<int64_t>{1, 2, 3, -1, -1, 5, -1, 6, 7}));
  EXPECT_EQ(pad_sequences(s).size(1), 4);
  EXPECT_EQ(to_sequences(post), (Sequences{{2, 3, 4}, {5, 0, 0}, {6, 7, 0}}));
}

TEST(Sequences, TensorLayerDocumentedExamples) {
  EXPECT_EQ(remove_pad_sequences({{2, 3, 4, 0, 0}, {5, 1, 2, 3, 4, 0, 0, 0}, {4, 5, 0, 2, 4, 0, 0, 0}}),
            (Sequences{{2, 3, 4}, {5, 1, 2, 3, 4}, {4, 5, 0, 2, 4}}));
  EXPECT_EQ(remove_pad_sequences({{1, 2}}), (Sequences{{1, 2}}));
  EXPECT_EQ(sequences_add_start_id({{4, 3, 5, 3, 2, 2, 2, 2}, {5, 3, 9, 4, 9, 2, 2, 3}}, 2),
            (Sequences{{2, 4, 3, 5, 3, 2, 2, 2, 2}, {2, 5, 3, 9, 4, 9, 2, 2, 3}}));
  EXPECT_EQ(sequences_add_start_id({{4, 3, 5, 3, 2, 2, 2, 2}}, 2, true), (Sequences{{2, 4, 3, 5, 3, 2, 2, 2}}));
  EXPECT_EQ(sequences_add_end_id({{1, 2, 3}, {4, 5, 6, 7}}, 999), (Sequences{{1, 2, 3, 999}, {4, 5, 6, 7, 999}}));
  EXPECT_EQ(sequences_add_end_id_after_pad({{1, 2, 0, 0}, {1, 2, 3, 0}, {1, 2, 3, 4}}, 99, 0),
            (Sequences{{1, 2, 99, 0}, {1, 2, 3, 99}, {1, 2, 3, 4}}));
  Tensor mask = sequences_get_mask({{4, 0, 5, 3, 0, 0}, {5, 3, 9, 4, 9, 0}}, 0);
  EXPECT_EQ(ints(mask), (std::vector<int64_t>{1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0}));
}

TEST(Iterate, MinibatchesAsDocumented) {
  Tensor x = arange(12).reshape({6, 2});  // rows stand for 'a'..'f'
  Tensor y = arange(6);
  auto batches = minibatches(x, y, 2);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(ints(batches[1].inputs), (std::vector<int64_t>{4, 5, 6, 7}));
  EXPECT_EQ(ints(batches[2].targets), (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(minibatches(x, y, 4).size(), 1u);  // the last partial batch is dropped
  EXPECT_EQ(minibatches(x, y, 4, std::nullopt, true).back().targets.size(0), 2);
  // Shuffled: every example once, rows still paired with their targets.
  std::multiset<int64_t> seen;
  for (const auto& b : minibatches(x, y, 3, 7)) {
    const auto xi = ints(b.inputs), yi = ints(b.targets);
    for (size_t k = 0; k < yi.size(); ++k) {
      EXPECT_EQ(xi[2 * k], 2 * yi[k]);
      seen.insert(yi[k]);
    }
  }
  EXPECT_EQ(seen, (std::multiset<int64_t>{0, 1, 2, 3, 4, 5}));
  expect_error([&] { minibatches(x, arange(5), 2); }, {"minibatches", "6", "5"});
}

TEST(Iterate, SeqMinibatchesAsDocumented) {
  Tensor x = arange(12).reshape({6, 2});
  Tensor y = arange(6);
  auto batches = seq_minibatches(x, y, 2, 2, 1);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(ints(batches[0].targets), (std::vector<int64_t>{0, 1, 1, 2}));
  EXPECT_EQ(ints(batches[1].targets), (std::vector<int64_t>{2, 3, 3, 4}));
  EXPECT_EQ(batches[1].inputs.shape(), Shape({4, 2}));
  EXPECT_EQ(ints(batches[1].inputs), (std::vector<int64_t>{4, 5, 6, 7, 6, 7, 8, 9}));
}

TEST(Iterate, PtbIteratorAsDocumented) {
  std::vector<int64_t> data(20);
  for (int i = 0; i < 20; ++i) data[i] = i;
  auto steps = ptb_iterator(data, 2, 3);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(ints(steps[0].inputs), (std::vector<int64_t>{0, 1, 2, 10, 11, 12}));
  EXPECT_EQ(ints(steps[0].targets), (std::vector<int64_t>{1, 2, 3, 11, 12, 13}));
  EXPECT_EQ(ints(steps[1].inputs), (std::vector<int64_t>{3, 4, 5, 13, 14, 15}));
  EXPECT_EQ(ints(steps[2].targets), (std::vector<int64_t>{7, 8, 9, 17, 18, 19}));
  EXPECT_EQ(steps[2].inputs.shape(), Shape({2, 3}));
  expect_error([&] { ptb_iterator(data, 10, 3); }, {"ptb_iterator", "num_steps 3"});
}
