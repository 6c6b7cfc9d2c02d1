// The tokenizer helpers of TensorFlow's translate model (models/rnn/translate/data_utils.py),
// as TensorLayer's nlp module has them: basic_tokenizer, digit normalisation, the vocabulary
// file (create_vocabulary / initialize_vocabulary) and sentences to token ids with the model's
// start (_GO) and end (_EOS) tokens. Text is bytes, as there: no Unicode rules.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace strata::data {

// Splits on ASCII whitespace, then splits each piece around . , ! ? " ' : ; ) ( which become
// tokens of their own; empty pieces are dropped. "Hi, (you)!" -> Hi , ( you ) !
std::vector<std::string> basic_tokenizer(std::string_view sentence);

// Every ASCII digit replaced by '0' ("in 1984" -> "in 0000"), so numbers share vocabulary entries.
std::string normalize_digits(std::string_view word);

// _PAD _GO _EOS _UNK: ids 0..3 of every vocabulary create_vocabulary writes.
const std::vector<std::string>& translate_start_vocabulary();
inline constexpr int64_t kTranslatePadId = 0, kTranslateGoId = 1, kTranslateEosId = 2, kTranslateUnkId = 3;

// Writes `vocabulary_path` (one token a line; line i is id i) from the sentences of
// `data_path` (one a line): the start vocabulary, then tokens by count, most frequent first,
// ties in order of first appearance; at most max_size lines. Like TensorLayer, an existing
// vocabulary file is left as it is. Errors name the file.
void create_vocabulary(const std::string& vocabulary_path, const std::string& data_path, int64_t max_size,
                       bool normalize = true, const std::vector<std::string>& start = translate_start_vocabulary());

// A vocabulary file read back: token -> id (a repeated token keeps its last line, as
// TensorLayer's dict does) and id -> token.
struct TranslateVocabulary {
  std::unordered_map<std::string, int64_t> word_to_id;
  std::vector<std::string> id_to_word;
};
TranslateVocabulary initialize_vocabulary(const std::string& vocabulary_path);

struct TokenIdOptions {
  bool normalize = true;             // normalize_digits before the look-up
  int64_t unk_id = kTranslateUnkId;  // for tokens not in the vocabulary
  std::optional<int64_t> start_id;   // put first (the decoder's _GO), when set
  std::optional<int64_t> end_id;     // put last (_EOS), when set
};
std::vector<int64_t> sentence_to_token_ids(std::string_view sentence, const TranslateVocabulary& vocabulary,
                                           const TokenIdOptions& options = {});

// Every line of data_path as token ids, space-separated, one line each, into target_path
// (written whole or not at all); an existing target is left as it is, as in TensorLayer.
void data_to_token_ids(const std::string& data_path, const std::string& target_path, const std::string& vocabulary_path,
                       const TokenIdOptions& options = {});

}  // namespace strata::data
