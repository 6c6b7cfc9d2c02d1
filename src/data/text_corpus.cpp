#include "strata/data/text_corpus.hpp"

#include <cctype>
#include <fstream>
#include <sstream>

#include "strata/core/error.hpp"

namespace strata::data {

std::vector<std::string> read_words(const std::string& path, const std::string& eos) {
  std::ifstream in(path);
  STRATA_CHECK(in.good(), "read_words: cannot open ", path);
  std::vector<std::string> words;
  std::string line, word;
  while (std::getline(in, line)) {
    std::istringstream tokens(line);
    while (tokens >> word) words.push_back(word);
    if (!eos.empty()) words.push_back(eos);
  }
  STRATA_CHECK(!in.bad(), "read_words: error while reading ", path);
  return words;
}

PtbCorpus load_ptb(const std::string& dir) {
  const std::vector<std::string> train = read_words(dir + "/ptb.train.txt");
  PtbCorpus corpus{Vocabulary::build(train), {}, {}, {}};
  corpus.train = corpus.vocabulary.words_to_word_ids(train);
  corpus.valid = corpus.vocabulary.words_to_word_ids(read_words(dir + "/ptb.valid.txt"));
  corpus.test = corpus.vocabulary.words_to_word_ids(read_words(dir + "/ptb.test.txt"));
  return corpus;
}

std::vector<std::string> tokenize_words(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  auto end_word = [&] {
    while (!word.empty() && word.back() == '\'') word.pop_back();  // a closing quote, not an elision
    if (!word.empty()) words.push_back(std::move(word));
    word.clear();
  };
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    // U+2000..U+206F (dashes, curly quotes, ellipsis) is E2 80..81 xx in UTF-8.
    if (c == 0xE2 && i + 2 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xFE) == 0x80) {
      const bool apostrophe = text[i + 1] == '\x80' && text[i + 2] == '\x99';  // U+2019
      if (apostrophe && !word.empty()) word += '\'';
      else end_word();
      i += 3;
      continue;
    }
    if (std::isalnum(c) || c >= 0x80) word += static_cast<char>(std::tolower(c));
    else if (c == '\'' && !word.empty()) word += '\'';
    else end_word();
    ++i;
  }
  end_word();
  return words;
}

PtbCorpus split_corpus(const std::vector<std::string>& lines, const CorpusSplit& options) {
  STRATA_CHECK(options.valid >= 0 && options.test >= 0 && options.valid + options.test < 1,
               "split_corpus: valid (", options.valid, ") and test (", options.test,
               ") must be >= 0 and leave lines for training");
  const auto n = static_cast<double>(lines.size());
  const auto n_test = static_cast<size_t>(n * options.test), n_valid = static_cast<size_t>(n * options.valid);
  const size_t n_train = lines.size() - n_test - n_valid;
  STRATA_CHECK(n_train > 0, "split_corpus: no training lines among ", lines.size());
  auto words_of = [&](size_t begin, size_t end) {
    std::vector<std::string> words;
    for (size_t i = begin; i < end; ++i) {
      for (std::string& w : tokenize_words(lines[i])) words.push_back(std::move(w));
      if (!options.eos.empty()) words.push_back(options.eos);
    }
    return words;
  };
  const std::vector<std::string> train = words_of(0, n_train);
  PtbCorpus corpus{Vocabulary::build(train, options.vocabulary), {}, {}, {}};
  corpus.train = corpus.vocabulary.words_to_word_ids(train);
  corpus.valid = corpus.vocabulary.words_to_word_ids(words_of(n_train, n_train + n_valid));
  corpus.test = corpus.vocabulary.words_to_word_ids(words_of(n_train + n_valid, lines.size()));
  return corpus;
}

}  // namespace strata::data
