// Corpus BLEU as sacrebleu computes it by default (Post, 2018; sacrebleu 2.x corpus_bleu with
// tokenize="13a", smooth_method="exp", the mteval-v13a rules): the score the translation papers
// report, from plain detokenized sentences. TensorLayer's moses_multi_bleu runs a Perl script;
// this is the same measure without one.
#pragma once
#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace strata::data {

// mteval-v13a's tokenization (sacrebleu's "13a"): ASCII punctuation split off, periods and
// commas unless between digits, a dash after a digit, runs of ASCII whitespace made one space.
std::string bleu_tokenize_13a(std::string_view line);

struct BleuScore {
  double score = 0;                    // 0..100
  std::array<double, 4> precisions{};  // n-gram precisions in percent (smoothed where 0)
  std::array<long, 4> correct{}, total{};
  double brevity_penalty = 1;
  long hypothesis_length = 0, reference_length = 0;
};

// hypotheses[i] is scored against references[r][i] for every reference stream r (sacrebleu's
// [refs] argument). Every stream must have one sentence per hypothesis (an error otherwise).
BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references, bool lowercase = false);

}  // namespace strata::data
