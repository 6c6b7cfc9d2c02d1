#include "strata/data/bleu.hpp"

#include <cmath>
#include <map>

#include "ascii_text.hpp"
#include "strata/core/error.hpp"

namespace strata::data {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// sacrebleu's first rule: ASCII punctuation other than ' - . , (and space) gets spaces around it.
bool spaced_punctuation(char c) {
  return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') || (c >= '(' && c <= '+') ||
         (c >= ':' && c <= '@') || c == '/';
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// re.sub of a two-character pattern (first, second) -> first_part + second_part, scanning left
// to right without overlaps, as Python's re does.
template <class First, class Second, class Emit>
std::string two_char_rule(const std::string& s, First first, Second second, Emit emit) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (i + 1 < s.size() && first(s[i]) && second(s[i + 1])) {
      out += emit(s[i], s[i + 1]);
      i += 2;
    } else {
      out += s[i++];
    }
  }
  return out;
}

using Ngrams = std::map<std::vector<std::string>, long>;

Ngrams ngrams(const std::vector<std::string>& words) {
  Ngrams counts;
  for (size_t n = 1; n <= 4; ++n)
    for (size_t i = 0; i + n <= words.size(); ++i) ++counts[{words.begin() + i, words.begin() + i + n}];
  return counts;
}

std::string prepare(std::string s, bool lowercase) {
  while (!s.empty() && detail::is_ascii_space(s.back())) s.pop_back();  // sacrebleu's rstrip()
  if (lowercase)
    for (char& c : s) c = (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
  return bleu_tokenize_13a(s);
}

}  // namespace

std::string bleu_tokenize_13a(std::string_view line) {
  std::string s = replace_all(std::string(line), "<skipped>", "");
  s = replace_all(s, "-\n", "");
  s = replace_all(s, "\n", " ");
  if (s.find('&') != std::string::npos) {
    s = replace_all(s, "&quot;", "\"");
    s = replace_all(s, "&amp;", "&");
    s = replace_all(s, "&lt;", "<");
    s = replace_all(s, "&gt;", ">");
  }
  std::string spaced = " ";
  for (char c : s) spaced += spaced_punctuation(c) ? std::string(" ") + c + " " : std::string(1, c);
  spaced += " ";
  auto not_digit = [](char c) { return !is_digit(c); };
  auto period_or_comma = [](char c) { return c == '.' || c == ','; };
  auto str = [](char a) { return std::string(1, a); };
  s = two_char_rule(spaced, not_digit, period_or_comma, [&](char a, char b) { return str(a) + " " + b + " "; });
  s = two_char_rule(s, period_or_comma, not_digit, [&](char a, char b) { return " " + str(a) + " " + b; });
  s = two_char_rule(
      s, is_digit, [](char c) { return c == '-'; }, [&](char a, char b) { return str(a) + " " + b + " "; });
  std::string out;
  for (const std::string& w : detail::split_ascii_whitespace(s)) out += (out.empty() ? "" : " ") + w;
  return out;
}

BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references, bool lowercase) {
  STRATA_CHECK(!references.empty(), "corpus_bleu: no reference streams");
  for (size_t r = 0; r < references.size(); ++r)
    STRATA_CHECK(references[r].size() == hypotheses.size(), "corpus_bleu: reference stream ", r, " has ",
                 references[r].size(), " sentences, the hypotheses ", hypotheses.size());
  BleuScore b;
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    const std::vector<std::string> hyp = detail::split_ascii_whitespace(prepare(hypotheses[i], lowercase));
    Ngrams most;  // each n-gram's largest count in any one reference
    long closest_len = -1, closest_diff = -1;
    for (const auto& stream : references) {
      const std::vector<std::string> ref = detail::split_ascii_whitespace(prepare(stream[i], lowercase));
      for (const auto& [gram, count] : ngrams(ref)) most[gram] = std::max(most[gram], count);
      const long len = long(ref.size()), diff = std::labs(long(hyp.size()) - len);
      if (closest_diff == -1 || diff < closest_diff)
        closest_diff = diff, closest_len = len;
      else if (diff == closest_diff && len < closest_len)
        closest_len = len;
    }
    b.hypothesis_length += long(hyp.size());
    b.reference_length += closest_len;
    for (const auto& [gram, count] : ngrams(hyp)) {
      const auto it = most.find(gram);
      b.correct[gram.size() - 1] += std::min(count, it == most.end() ? 0L : it->second);
      b.total[gram.size() - 1] += count;
    }
  }
  if (b.hypothesis_length < b.reference_length)
    b.brevity_penalty = b.hypothesis_length > 0 ? std::exp(1 - double(b.reference_length) / b.hypothesis_length) : 0.0;
  if (b.correct[0] + b.correct[1] + b.correct[2] + b.correct[3] == 0) return b;
  // sacrebleu's "exp" smoothing (mteval's): the k-th order with no match counts 1 / 2^k matches.
  double smooth = 1, log_sum = 0;
  for (int n = 0; n < 4; ++n) {
    if (b.total[n] == 0) break;
    if (b.correct[n] == 0) {
      smooth *= 2;
      b.precisions[n] = 100.0 / (smooth * b.total[n]);
    } else {
      b.precisions[n] = 100.0 * b.correct[n] / b.total[n];
    }
  }
  for (double p : b.precisions) log_sum += p == 0 ? -9999999999.0 : std::log(p);  // sacrebleu's my_log
  b.score = b.brevity_penalty * std::exp(log_sum / 4);
  return b;
}

}  // namespace strata::data
