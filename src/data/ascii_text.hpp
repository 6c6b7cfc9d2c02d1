// Python's bytes whitespace rules (str.split() with no argument, strip()), which TensorLayer's
// text helpers and sacrebleu apply: the loaders and nlp tools split text the same way.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace strata::data::detail {

inline bool is_ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

inline std::string_view strip_ascii(std::string_view s) {
  while (!s.empty() && is_ascii_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_ascii_space(s.back())) s.remove_suffix(1);
  return s;
}

// The words between runs of whitespace (Python's bytes.split()).
inline std::vector<std::string> split_ascii_whitespace(std::string_view s) {
  std::vector<std::string> words;
  for (size_t i = 0; i < s.size();) {
    while (i < s.size() && is_ascii_space(s[i])) ++i;
    const size_t start = i;
    while (i < s.size() && !is_ascii_space(s[i])) ++i;
    if (i > start) words.emplace_back(s.substr(start, i - start));
  }
  return words;
}

}  // namespace strata::data::detail
