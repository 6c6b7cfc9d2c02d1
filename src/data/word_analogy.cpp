#include "strata/data/word_analogy.hpp"

#include <cmath>
#include <filesystem>
#include <limits>
#include <string_view>
#include <vector>

#include "ascii_text.hpp"
#include "file_bytes.hpp"
#include "strata/core/error.hpp"

namespace strata::data {
AnalogyQuestions read_analogies_file(const std::string& path,
                                     const std::unordered_map<std::string, int64_t>& word_to_id) {
  STRATA_CHECK(std::filesystem::is_regular_file(path), "read_analogies_file: expected the file ", path,
               " (questions-words.txt: four words a line)");
  const std::vector<unsigned char> bytes = detail::read_file_bytes(path, "read_analogies_file");
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  std::vector<int32_t> ids;
  AnalogyQuestions q;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line[0] == ':') continue;
    std::string lower(detail::strip_ascii(line));
    for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
    // split(b" "): single spaces, so two spaces make an empty word (which no vocabulary has).
    std::vector<int32_t> found;
    bool ok = true;
    for (size_t a = 0;;) {
      const size_t b = std::min(lower.find(' ', a), lower.size());
      const auto it = word_to_id.find(std::string(detail::strip_ascii(std::string_view(lower).substr(a, b - a))));
      if (it == word_to_id.end() || it->second > std::numeric_limits<int32_t>::max())
        ok = false;
      else
        found.push_back(int32_t(it->second));
      if (b == lower.size()) break;
      a = b + 1;
    }
    if (!ok || found.size() != 4) {
      ++q.skipped;
      continue;
    }
    ids.insert(ids.end(), found.begin(), found.end());
  }
  q.ids = Tensor::empty({int64_t(ids.size() / 4), 4}, kInt32);
  std::copy(ids.begin(), ids.end(), q.ids.data<int32_t>());
  return q;
}

AnalogyResult evaluate_analogies(const Tensor& embeddings, const Tensor& questions) {
  STRATA_CHECK(embeddings.dim() == 2 && embeddings.dtype() == kFloat32,
               "evaluate_analogies: embeddings must be float32 "
               "[vocabulary, dim], came ",
               embeddings.shape().str(), " ", dtype_name(embeddings.dtype()));
  STRATA_CHECK(questions.dim() == 2 && questions.size(1) == 4, "evaluate_analogies: questions must be [N, 4], came ",
               questions.shape().str());
  const int64_t vocab = embeddings.size(0), dim = embeddings.size(1);
  std::vector<float> unit = embeddings.to_vector<float>();
  for (int64_t w = 0; w < vocab; ++w) {
    double norm = 0;
    for (int64_t k = 0; k < dim; ++k) norm += double(unit[w * dim + k]) * unit[w * dim + k];
    const float scale = norm > 0 ? float(1 / std::sqrt(norm)) : 0.f;
    for (int64_t k = 0; k < dim; ++k) unit[w * dim + k] *= scale;
  }
  const std::vector<int64_t> q = questions.to_vector<int64_t>();
  for (int64_t id : q)
    STRATA_CHECK(id >= 0 && id < vocab, "evaluate_analogies: word id ", id, " outside [0, ", vocab, ")");
  AnalogyResult result;
  std::vector<float> target(dim);
  for (size_t i = 0; i < q.size(); i += 4) {
    const float *a = &unit[q[i] * dim], *b = &unit[q[i + 1] * dim], *c = &unit[q[i + 2] * dim];
    for (int64_t k = 0; k < dim; ++k) target[k] = b[k] - a[k] + c[k];
    int64_t best = -1;
    float best_dot = -std::numeric_limits<float>::infinity();
    for (int64_t w = 0; w < vocab; ++w) {
      if (w == q[i] || w == q[i + 1] || w == q[i + 2]) continue;
      float dot = 0;
      for (int64_t k = 0; k < dim; ++k) dot += unit[w * dim + k] * target[k];
      if (dot > best_dot) best_dot = dot, best = w;
    }
    result.correct += best == q[i + 3];
    ++result.total;
  }
  return result;
}

}  // namespace strata::data
