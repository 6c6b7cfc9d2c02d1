#include "strata/data/vocabulary.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "strata/core/error.hpp"

namespace strata::data {

void Vocabulary::add(const std::string& word, int64_t count) {
  ids_.emplace(word, size());
  words_.push_back(word);
  counts_.push_back(count);
}

Vocabulary Vocabulary::build(const std::vector<std::string>& words, const VocabularyOptions& options) {
  STRATA_CHECK(options.max_size == 0 || options.max_size >= 1,
               "Vocabulary::build: max_size must be 0 (no limit) or >= 1, got ", options.max_size);
  std::unordered_map<std::string, int64_t> counter;
  for (const std::string& w : words) ++counter[w];
  std::vector<std::pair<std::string, int64_t>> ranked(counter.begin(), counter.end());
  std::sort(ranked.begin(), ranked.end(),
            [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });

  const int64_t limit = options.max_size == 0 ? INT64_MAX : options.max_size;
  Vocabulary vocab;
  int64_t left_out = 0;
  for (const auto& [word, count] : ranked) {
    const bool is_unknown = word == options.unknown;
    // One id stays kept for the unknown word until it has one.
    const int64_t room = limit - (vocab.contains(options.unknown) ? 0 : 1);
    if (is_unknown || (count >= options.min_count && vocab.size() < room)) vocab.add(word, count);
    else left_out += count;
  }
  if (!vocab.contains(options.unknown)) vocab.add(options.unknown, 0);
  vocab.unknown_id_ = vocab.ids_.at(options.unknown);
  vocab.counts_[vocab.unknown_id_] += left_out;
  return vocab;
}

Vocabulary Vocabulary::load(const std::string& path, const std::string& unknown) {
  std::ifstream in(path);
  STRATA_CHECK(in.good(), "Vocabulary::load: cannot open ", path);
  Vocabulary vocab;
  std::string line;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    std::istringstream fields(line);
    std::string word, extra;
    int64_t count = 0;
    if (!(fields >> word)) continue;  // blank line
    STRATA_CHECK(fields >> count && !(fields >> extra), "Vocabulary::load: ", path, " line ", number,
                 ": expected 'word count', got '", line, "'");
    STRATA_CHECK(!vocab.contains(word), "Vocabulary::load: ", path, " line ", number, ": '", word,
                 "' is listed twice");
    vocab.add(word, count);
  }
  if (!vocab.contains(unknown)) vocab.add(unknown, 0);
  vocab.unknown_id_ = vocab.ids_.at(unknown);
  return vocab;
}

void Vocabulary::save(const std::string& path) const {
  std::ofstream out(path);
  for (int64_t i = 0; i < size(); ++i) out << words_[i] << ' ' << counts_[i] << '\n';
  STRATA_CHECK(out.good(), "Vocabulary::save: cannot write ", path);
}

int64_t Vocabulary::id(const std::string& word) const {
  auto it = ids_.find(word);
  return it == ids_.end() ? unknown_id_ : it->second;
}

const std::string& Vocabulary::word(int64_t id) const {
  STRATA_CHECK(id >= 0 && id < size(), "Vocabulary: word id ", id, " out of range for a vocabulary of ", size(),
               " words");
  return words_[id];
}

int64_t Vocabulary::count(int64_t id) const { return counts_[&word(id) - words_.data()]; }

std::vector<int64_t> Vocabulary::words_to_word_ids(const std::vector<std::string>& words) const {
  std::vector<int64_t> out;
  out.reserve(words.size());
  for (const std::string& w : words) out.push_back(id(w));
  return out;
}

std::vector<std::string> Vocabulary::word_ids_to_words(const std::vector<int64_t>& ids) const {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (int64_t i : ids) out.push_back(word(i));
  return out;
}

}  // namespace strata::data
