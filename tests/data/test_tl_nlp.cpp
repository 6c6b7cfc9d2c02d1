// TensorLayer's nlp tools against their references on the same inputs
// (tests/data/make_tl_fixtures.py): the translate tokenizer helpers against TensorLayer 2.2.5's
// own functions, corpus BLEU against sacrebleu 2.4.3, the analogy reader against TensorLayer's
// and the evaluation against a NumPy computation of word2vec's rule.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "strata/data/bleu.hpp"
#include "strata/data/translate_tokenizer.hpp"
#include "strata/data/word_analogy.hpp"

namespace {

namespace fs = std::filesystem;

fs::path nlp_fixture(const std::string& name) { return fs::path(STRATA_TESTS_DIR) / "data/tl_fixtures" / name; }

nlohmann::json nlp_expected(const std::string& name) {
  std::ifstream in(nlp_fixture(name));
  return nlohmann::json::parse(in);
}

std::string nlp_read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> nlp_lines(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(TlNlp, TranslateTokenizerMatchesTensorLayer) {
  const auto tl = nlp_expected("translate_expected.json");
  const fs::path data = nlp_fixture("wmt_en_fr/newstest2013.en");
  const std::vector<std::string> lines = nlp_lines(data);
  ASSERT_EQ(lines.size(), tl["tokens"].size());
  for (size_t i = 0; i < lines.size(); ++i)
    EXPECT_EQ(strata::data::basic_tokenizer(lines[i]), tl["tokens"][i].get<std::vector<std::string>>()) << lines[i];
  EXPECT_EQ(strata::data::normalize_digits("in 1984, 2nd"), "in 0000, 0nd");

  const fs::path tmp = fs::temp_directory_path() / ("strata_tl_nlp_" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  for (auto [size, normalize] : {std::pair{40, true}, std::pair{12, false}}) {
    const std::string vocab = (tmp / ("vocab" + std::to_string(size))).string();
    strata::data::create_vocabulary(vocab, data.string(), size, normalize);
    EXPECT_EQ(nlp_read(vocab), tl["vocabulary" + std::to_string(size)].get<std::string>());
    const auto vocabulary = strata::data::initialize_vocabulary(vocab);
    strata::data::TokenIdOptions options{.normalize = normalize};
    for (size_t i = 0; i < lines.size(); ++i)
      EXPECT_EQ(strata::data::sentence_to_token_ids(lines[i], vocabulary, options),
                tl["ids" + std::to_string(size)][i].get<std::vector<int64_t>>());
    const std::string target = (tmp / ("ids" + std::to_string(size) + ".txt")).string();
    strata::data::data_to_token_ids(data.string(), target, vocab, options);
    EXPECT_EQ(nlp_read(target), tl["data_ids" + std::to_string(size)].get<std::string>());
    // The decoder's view of a sentence: _GO first, _EOS last.
    options.start_id = strata::data::kTranslateGoId, options.end_id = strata::data::kTranslateEosId;
    const auto framed = strata::data::sentence_to_token_ids(lines[0], vocabulary, options);
    auto want = tl["ids" + std::to_string(size)][0].get<std::vector<int64_t>>();
    want.insert(want.begin(), 1), want.push_back(2);
    EXPECT_EQ(framed, want);
  }
  // An existing vocabulary file is kept, as TensorLayer keeps it.
  const std::string vocab40 = (tmp / "vocab40").string();
  strata::data::create_vocabulary(vocab40, data.string(), 5);
  EXPECT_EQ(nlp_read(vocab40), tl["vocabulary40"].get<std::string>());
  EXPECT_THROW(strata::data::initialize_vocabulary((tmp / "absent").string()), strata::Error);
  fs::remove_all(tmp);
}

TEST(TlNlp, BleuMatchesSacrebleu) {
  const auto ref = nlp_expected("bleu_expected.json");
  for (const auto& pair : ref["tokenized"])
    EXPECT_EQ(strata::data::bleu_tokenize_13a(pair[0].get<std::string>()), pair[1].get<std::string>());
  for (const auto& c : ref["cases"]) {
    const auto b = strata::data::corpus_bleu(c["hypotheses"].get<std::vector<std::string>>(),
                                             c["references"].get<std::vector<std::vector<std::string>>>(),
                                             c["lowercase"].get<bool>());
    EXPECT_NEAR(b.score, c["score"].get<double>(), 1e-9);
    EXPECT_NEAR(b.brevity_penalty, c["bp"].get<double>(), 1e-12);
    EXPECT_EQ(b.hypothesis_length, c["sys_len"].get<long>());
    EXPECT_EQ(b.reference_length, c["ref_len"].get<long>());
    for (int n = 0; n < 4; ++n) {
      EXPECT_EQ(b.correct[n], c["counts"][n].get<long>());
      EXPECT_EQ(b.total[n], c["totals"][n].get<long>());
      EXPECT_NEAR(b.precisions[n], c["precisions"][n].get<double>(), 1e-9);
    }
  }
  EXPECT_THROW(strata::data::corpus_bleu({"a", "b"}, {{"a"}}), strata::Error);
}

TEST(TlNlp, AnalogiesMatchTensorLayerAndNumpy) {
  const auto ref = nlp_expected("analogy_expected.json");
  std::unordered_map<std::string, int64_t> word_to_id;
  const auto words = ref["words"].get<std::vector<std::string>>();
  for (size_t i = 0; i < words.size(); ++i) word_to_id[words[i]] = int64_t(i);
  const auto q = strata::data::read_analogies_file(nlp_fixture("questions-words.txt").string(), word_to_id);
  const auto want = ref["ids"].get<std::vector<std::vector<int>>>();
  ASSERT_EQ(q.ids.shape(), strata::Shape({int64_t(want.size()), 4}));
  const auto got = q.ids.to_vector<int>();
  for (size_t i = 0; i < want.size(); ++i)
    for (int k = 0; k < 4; ++k) EXPECT_EQ(got[i * 4 + k], want[i][k]);
  EXPECT_EQ(q.skipped, 3);  // an unknown word, a two-word line, a double space

  const auto rows = ref["embedding"].get<std::vector<std::vector<float>>>();
  strata::Tensor emb = strata::Tensor::empty({int64_t(rows.size()), int64_t(rows[0].size())});
  for (size_t i = 0; i < rows.size(); ++i)
    std::copy(rows[i].begin(), rows[i].end(), emb.data<float>() + i * rows[0].size());
  const auto result = strata::data::evaluate_analogies(emb, q.ids);
  EXPECT_EQ(result.total, int64_t(want.size()));
  EXPECT_EQ(result.correct, ref["correct"].get<int64_t>());
  EXPECT_THROW(strata::data::read_analogies_file(nlp_fixture("absent.txt").string(), word_to_id), strata::Error);
}

}  // namespace
