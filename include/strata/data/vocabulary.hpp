// Vocabulary: words <-> integer ids for text corpora (TensorLayer's nlp.build_vocab,
// Vocabulary, words_to_word_ids and word_ids_to_words).
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace strata::data {

struct VocabularyOptions {
  int64_t min_count = 1;  // rarer words become the unknown word
  int64_t max_size = 0;   // at most this many ids, the unknown word's included (0: no limit)
  std::string unknown = "<unk>";
};

// Ids go by count, most frequent first, ties alphabetically (TensorLayer's build_vocab), so a
// corpus gives the same ids everywhere. The unknown word keeps its rank when the corpus has it
// (PTB does), else it takes the last id; the counts of the words left out are added to it.
class Vocabulary {
 public:
  static Vocabulary build(const std::vector<std::string>& words, const VocabularyOptions& options = {});
  // Reads "word count" lines in id order (what save writes; TensorLayer's create_vocab file).
  // `unknown` is added last when the file does not list it. Errors name the file and the line.
  static Vocabulary load(const std::string& path, const std::string& unknown = "<unk>");
  void save(const std::string& path) const;

  int64_t size() const { return static_cast<int64_t>(words_.size()); }
  int64_t unknown_id() const { return unknown_id_; }
  bool contains(const std::string& word) const { return ids_.count(word) != 0; }
  // The word's id, or unknown_id() for a word not in the vocabulary.
  int64_t id(const std::string& word) const;
  // Throws strata::Error for an id outside [0, size).
  const std::string& word(int64_t id) const;
  int64_t count(int64_t id) const;  // occurrences in the corpus it was built from

  std::vector<int64_t> words_to_word_ids(const std::vector<std::string>& words) const;
  std::vector<std::string> word_ids_to_words(const std::vector<int64_t>& ids) const;

 private:
  void add(const std::string& word, int64_t count);
  std::vector<std::string> words_;
  std::vector<int64_t> counts_;
  std::unordered_map<std::string, int64_t> ids_;
  int64_t unknown_id_ = 0;
};

}  // namespace strata::data
