// Word-analogy questions (Mikolov et al. 2013's questions-words.txt: "a b c d" per line, ": "
// lines naming sections) read into word ids as TensorLayer's nlp.read_analogies_file does, and
// their evaluation on an embedding: a is to b as c is to the word nearest b - a + c.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>

#include "strata/core/tensor.hpp"

namespace strata::data {

struct AnalogyQuestions {
  Tensor ids;           // int32 [N, 4]: a, b, c, d
  int64_t skipped = 0;  // lines with a word not in word_to_id, or not four words
};

// Lines are lower-cased (ASCII) and split on single spaces, as TensorLayer does; lines starting
// with ':' are section names. A missing file is an error naming it.
AnalogyQuestions read_analogies_file(const std::string& path,
                                     const std::unordered_map<std::string, int64_t>& word_to_id);

struct AnalogyResult {
  int64_t correct = 0, total = 0;
  double accuracy() const { return total ? double(correct) / double(total) : 0.0; }
};

// For each question, the word (other than a, b and c) whose unit-length embedding has the
// largest dot product with n(b) - n(a) + n(c), n the rows scaled to unit length (word2vec's
// evaluation, as TensorLayer's word2vec tutorial runs it); correct when it is d. `embeddings`
// is float32 [vocabulary, dim]; question ids must be in range (an error otherwise).
AnalogyResult evaluate_analogies(const Tensor& embeddings, const Tensor& questions);

}  // namespace strata::data
