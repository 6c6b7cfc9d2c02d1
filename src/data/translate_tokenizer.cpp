#include "strata/data/translate_tokenizer.hpp"

#include <algorithm>
#include <filesystem>
#include <string>

#include "ascii_text.hpp"
#include "file_bytes.hpp"
#include "strata/core/error.hpp"
#include "strata/io/atomic_file.hpp"

namespace strata::data {
namespace {

bool is_split_mark(char c) {
  return c == '.' || c == ',' || c == '!' || c == '?' || c == '"' || c == '\'' || c == ':' || c == ';' || c == ')' ||
         c == '(';
}

// The file's lines (split on '\n' only, as Python iterates a binary file).
std::vector<std::string> file_lines(const std::string& path, const char* what) {
  const std::vector<unsigned char> bytes = detail::read_file_bytes(path, what);
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t i = 0; i <= bytes.size(); ++i) {
    if (i == bytes.size() || bytes[i] == '\n') {
      if (i > start || i < bytes.size()) lines.emplace_back(bytes.begin() + start, bytes.begin() + i);
      start = i + 1;
    }
  }
  return lines;
}

void write_whole(const std::string& path, const std::string& text) {
  io::AtomicFile file(path);
  file.write(text.data(), text.size());
  file.commit();
}

}  // namespace

std::vector<std::string> basic_tokenizer(std::string_view sentence) {
  std::vector<std::string> tokens;
  std::string word;
  for (char c : sentence) {
    if (detail::is_ascii_space(c) || is_split_mark(c)) {
      if (!word.empty()) tokens.push_back(std::move(word)), word.clear();
      if (is_split_mark(c)) tokens.emplace_back(1, c);
    } else {
      word += c;
    }
  }
  if (!word.empty()) tokens.push_back(std::move(word));
  return tokens;
}

std::string normalize_digits(std::string_view word) {
  std::string out(word);
  for (char& c : out)
    if (c >= '0' && c <= '9') c = '0';
  return out;
}

const std::vector<std::string>& translate_start_vocabulary() {
  static const std::vector<std::string> start = {"_PAD", "_GO", "_EOS", "_UNK"};
  return start;
}

void create_vocabulary(const std::string& vocabulary_path, const std::string& data_path, int64_t max_size,
                       bool normalize, const std::vector<std::string>& start) {
  if (std::filesystem::exists(vocabulary_path)) return;
  STRATA_CHECK(max_size > 0, "create_vocabulary: max_size must be positive, came ", max_size);
  std::unordered_map<std::string, int64_t> index;      // token -> position in `order`
  std::vector<std::pair<std::string, int64_t>> order;  // (token, count) in order of first appearance
  for (const std::string& line : file_lines(data_path, "create_vocabulary")) {
    for (const std::string& token : basic_tokenizer(line)) {
      std::string word = normalize ? normalize_digits(token) : token;
      auto [it, added] = index.try_emplace(word, int64_t(order.size()));
      if (added) order.emplace_back(std::move(word), 0);
      ++order[it->second].second;
    }
  }
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  int64_t lines = 0;
  for (const std::string& w : start)
    if (lines++ < max_size) text += w + "\n";
  for (const auto& [w, count] : order)
    if (lines++ < max_size) text += w + "\n";
  write_whole(vocabulary_path, text);
}

TranslateVocabulary initialize_vocabulary(const std::string& vocabulary_path) {
  STRATA_CHECK(std::filesystem::is_regular_file(vocabulary_path), "initialize_vocabulary: vocabulary file ",
               vocabulary_path, " not found");
  TranslateVocabulary vocabulary;
  for (const std::string& line : file_lines(vocabulary_path, "initialize_vocabulary")) {
    vocabulary.word_to_id[std::string(detail::strip_ascii(line))] = int64_t(vocabulary.id_to_word.size());
    vocabulary.id_to_word.emplace_back(detail::strip_ascii(line));
  }
  return vocabulary;
}

std::vector<int64_t> sentence_to_token_ids(std::string_view sentence, const TranslateVocabulary& vocabulary,
                                           const TokenIdOptions& options) {
  std::vector<int64_t> ids;
  if (options.start_id) ids.push_back(*options.start_id);
  for (const std::string& token : basic_tokenizer(sentence)) {
    const auto it = vocabulary.word_to_id.find(options.normalize ? normalize_digits(token) : token);
    ids.push_back(it == vocabulary.word_to_id.end() ? options.unk_id : it->second);
  }
  if (options.end_id) ids.push_back(*options.end_id);
  return ids;
}

void data_to_token_ids(const std::string& data_path, const std::string& target_path, const std::string& vocabulary_path,
                       const TokenIdOptions& options) {
  if (std::filesystem::exists(target_path)) return;
  const TranslateVocabulary vocabulary = initialize_vocabulary(vocabulary_path);
  std::string text;
  for (const std::string& line : file_lines(data_path, "data_to_token_ids")) {
    const std::vector<int64_t> ids = sentence_to_token_ids(line, vocabulary, options);
    for (size_t i = 0; i < ids.size(); ++i) text += (i ? " " : "") + std::to_string(ids[i]);
    text += "\n";
  }
  write_whole(target_path, text);
}

}  // namespace strata::data
