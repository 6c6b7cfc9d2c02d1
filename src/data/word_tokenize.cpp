// NLTK 3.9's NLTKWordTokenizer as ECMAScript regular expressions (data/word_tokenize.hpp). Each
// rule is NLTK's, in NLTK's order; the differences of the regex dialect are handled where they
// matter: multi-byte quote characters as alternations instead of character classes, Python's
// (?i) as the icase flag, and Python's `$` (end, or before a final newline) as (?=\n?$).
#include "strata/data/word_tokenize.hpp"

#include <regex>
#include <sstream>

namespace strata::data {
namespace {

struct TokenizerRule {
  std::regex pattern;
  std::string replacement;  // std::regex_replace's format: $1, $& (the match)
};

TokenizerRule tokenizer_rule(const char* pattern, const char* replacement, bool icase = false) {
  auto flags = std::regex::ECMAScript | std::regex::optimize;
  if (icase) flags |= std::regex::icase;
  return {std::regex(pattern, flags), replacement};
}

// The rules in the order NLTKWordTokenizer.tokenize applies them; the text is padded with a
// space on each side before the ending quotes.
struct TreebankRules {
  std::vector<TokenizerRule> before_padding, after_padding;
};

const TreebankRules& treebank_rules() {
  static const TreebankRules rules = [] {
    TreebankRules r;
    r.before_padding = {
        // STARTING_QUOTES
        tokenizer_rule("(«|“|‘|„|`+)", " $1 "),
        tokenizer_rule("^\"", "``"),
        tokenizer_rule("(``)", " $1 "),
        tokenizer_rule("([ (\\[{<])(\"|'{2})", "$1 `` "),
        tokenizer_rule("(')(?!re|ve|ll|m|t|s|d|n)(\\w)\\b", "$1 $2", true),
        // PUNCTUATION
        tokenizer_rule("([^.])(\\.)((?:[\\])}>\"' ]|»|”|’)*)\\s*$", "$1 $2 $3 "),
        tokenizer_rule("([:,])([^\\d])", " $1 $2"),
        tokenizer_rule("([:,])(?=\\n?$)", " $1 "),
        tokenizer_rule("\\.{2,}", " $& "),
        tokenizer_rule("[;@#$%&]", " $& "),
        tokenizer_rule("([^.])(\\.)([\\])}>\"']*)\\s*$", "$1 $2$3 "),
        tokenizer_rule("[?!]", " $& "),
        tokenizer_rule("([^'])' ", "$1 ' "),
        tokenizer_rule("[*]", " $& "),
        // PARENS_BRACKETS, DOUBLE_DASHES
        tokenizer_rule("[\\]\\[(){}<>]", " $& "),
        tokenizer_rule("--", " -- "),
    };
    r.after_padding = {
        // ENDING_QUOTES
        tokenizer_rule("(»|”|’)", " $1 "),
        tokenizer_rule("''", " '' "),
        tokenizer_rule("\"", " '' "),
        tokenizer_rule("\\s+", " "),
        tokenizer_rule("([^' ])('[sS]|'[mM]|'[dD]|') ", "$1 $2 "),
        tokenizer_rule("([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", "$1 $2 "),
        // CONTRACTIONS2, CONTRACTIONS3
        tokenizer_rule("\\b(can)(not)\\b", " $1 $2 ", true),
        tokenizer_rule("\\b(d)('ye)\\b", " $1 $2 ", true),
        tokenizer_rule("\\b(gim)(me)\\b", " $1 $2 ", true),
        tokenizer_rule("\\b(gon)(na)\\b", " $1 $2 ", true),
        tokenizer_rule("\\b(got)(ta)\\b", " $1 $2 ", true),
        tokenizer_rule("\\b(lem)(me)\\b", " $1 $2 ", true),
        tokenizer_rule("\\b(more)('n)\\b", " $1 $2 ", true),
        tokenizer_rule("\\b(wan)(na)(?=\\s)", " $1 $2 ", true),
        tokenizer_rule(" ('t)(is)\\b", " $1 $2 ", true),
        tokenizer_rule(" ('t)(was)\\b", " $1 $2 ", true),
    };
    return r;
  }();
  return rules;
}

}  // namespace

std::vector<std::string> treebank_word_tokenize(std::string_view text) {
  const TreebankRules& rules = treebank_rules();
  std::string s(text);
  for (const TokenizerRule& rule : rules.before_padding) s = std::regex_replace(s, rule.pattern, rule.replacement);
  s = " " + s + " ";
  for (const TokenizerRule& rule : rules.after_padding) s = std::regex_replace(s, rule.pattern, rule.replacement);
  std::vector<std::string> tokens;
  std::istringstream words(s);
  for (std::string word; words >> word;) tokens.push_back(word);
  return tokens;
}

std::vector<std::string> process_sentence(std::string_view sentence, const std::string& start_word,
                                          const std::string& end_word) {
  std::string lower(sentence);
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  std::vector<std::string> out;
  if (!start_word.empty()) out.push_back(start_word);
  for (std::string& token : treebank_word_tokenize(lower)) out.push_back(std::move(token));
  if (!end_word.empty()) out.push_back(end_word);
  return out;
}

}  // namespace strata::data
