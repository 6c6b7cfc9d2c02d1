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

}  // namespace strata::data
