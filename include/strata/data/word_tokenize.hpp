// NLTK's word tokenizer (the improved Penn Treebank rules, nltk.tokenize.NLTKWordTokenizer) and
// TensorLayer's tl.nlp.process_sentence built on it. The rules are NLTK 3.9's, applied to the
// whole text as word_tokenize(text, preserve_line=True) does: punkt's trained sentence splitter
// is not run, so a period inside a multi-sentence text stays on its word ("them." "thanks" "."),
// where NLTK's default would split it off. Text is UTF-8 bytes: the quote characters « » “ ” ‘ ’
// „ are recognised, but letters beyond ASCII count as non-word characters in the contraction rules.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace strata::data {

// "Good muffins cost $3.88 (roughly 3,36 euros)" -> Good muffins cost $ 3.88 ( roughly 3,36 euros );
// "can't" -> ca n't; "\"Hi\"" -> `` Hi ''.
std::vector<std::string> treebank_word_tokenize(std::string_view text);

// TensorLayer's process_sentence: start_word, the tokens of the sentence lower-cased (ASCII
// letters), end_word; an empty start or end word is left out (TensorLayer's None).
std::vector<std::string> process_sentence(std::string_view sentence, const std::string& start_word = "<S>",
                                          const std::string& end_word = "</S>");

}  // namespace strata::data
