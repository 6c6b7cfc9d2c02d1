// Text corpora to word ids, PTB-style: words split on whitespace, an end-of-sentence word
// after each line (TensorLayer's nlp.read_words and files.load_ptb_dataset).
#pragma once
#include <string>
#include <vector>

#include "strata/data/vocabulary.hpp"

namespace strata::data {

// The file's words; `eos` (unless empty) is added at the end of every line. Errors name the file.
std::vector<std::string> read_words(const std::string& path, const std::string& eos = "<eos>");

// Penn Treebank as word ids: the vocabulary is built from the training words (every word kept),
// and validation and test words it lacks map to its unknown word.
struct PtbCorpus {
  Vocabulary vocabulary;
  std::vector<int64_t> train, valid, test;
};
// From `dir` holding ptb.train.txt, ptb.valid.txt and ptb.test.txt (simple-examples/data).
PtbCorpus load_ptb(const std::string& dir);

// Running text to words for a corpus that is not tokenised already (a book, a Bible): lower
// case; letters, digits, other non-ASCII characters and apostrophes inside a word (' or U+2019)
// make words; everything else, the Unicode punctuation U+2000..U+206F included, separates them.
std::vector<std::string> tokenize_words(const std::string& text);

// A corpus of lines (verses, sentences, paragraphs) split PTB-style: the first lines train, the
// next `valid` fraction validates, the last `test` fraction tests; each line's words
// (tokenize_words) end with `eos`. The vocabulary comes from the training words (PTB caps its
// at 10,000 with max_size), so validation and test words it lacks become its unknown word.
struct CorpusSplit {
  double valid = 0.05, test = 0.05;
  VocabularyOptions vocabulary = {};
  std::string eos = "<eos>";
};
PtbCorpus split_corpus(const std::vector<std::string>& lines, const CorpusSplit& options = {});

}  // namespace strata::data
