#include "strata/data/text_corpus.hpp"

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

}  // namespace strata::data
