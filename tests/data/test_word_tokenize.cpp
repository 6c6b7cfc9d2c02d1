// NLTK's word tokenizer and TensorLayer's process_sentence (data/word_tokenize.hpp) against NLTK
// 3.9.1's tokens for the same texts (nltk_tokenize_fixture.hpp, written by
// make_nltk_tokenize_fixture.py): every rule of NLTKWordTokenizer is exercised by some text.
#include <gtest/gtest.h>

#include "nltk_tokenize_fixture.hpp"
#include "strata/data/word_tokenize.hpp"

namespace strata {
namespace {

TEST(WordTokenizeTest, MatchesNltksTokens) {
  ASSERT_GE(testing::nltk_tokenize_cases().size(), 10u);
  for (const testing::NltkTokenizeCase& c : testing::nltk_tokenize_cases()) {
    EXPECT_EQ(data::treebank_word_tokenize(c.text), c.tokens) << c.text;
    EXPECT_EQ(data::process_sentence(c.text), c.processed) << c.text;
  }
}

TEST(WordTokenizeTest, ProcessSentenceLeavesOutEmptyStartAndEndWords) {
  EXPECT_EQ(data::process_sentence("A Dog runs.", "", ""), (std::vector<std::string>{"a", "dog", "runs", "."}));
  EXPECT_EQ(data::process_sentence("Hi!", "<start>", ""), (std::vector<std::string>{"<start>", "hi", "!"}));
}

}  // namespace
}  // namespace strata
