// The language model's baseline: an interpolated Kneser-Ney trigram model (Chen & Goodman's
// "interpolated KN" with one discount, 0.75, per order) counted on the training ids, the lowest
// order interpolated with the uniform distribution so that every word has a probability.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <strata/core/error.hpp>

class KneserNeyTrigram {
 public:
  KneserNeyTrigram(const std::vector<int64_t>& ids, int64_t vocabulary) : v_(vocabulary) {
    STRATA_CHECK(vocabulary > 0 && vocabulary < (int64_t{1} << 21), "KneserNeyTrigram: vocabulary ", vocabulary,
                 " must lie in (0, 2^21)");
    std::unordered_set<uint64_t> bigram_seen;
    for (size_t i = 0; i + 2 < ids.size(); ++i) {
      const uint64_t u = ids[i], v = ids[i + 1], w = ids[i + 2];
      if (tri_[key(u, v, w)]++ == 0) {  // a new trigram: (v, w) gains a left context
        ++context_count_[pair(v, w)];
        ++context_total_[v];
        ++tri_types_[pair(u, v)];
      }
      ++tri_total_[pair(u, v)];
      if (bigram_seen.insert(pair(v, w)).second) {  // a new bigram type: w gains a left context
        ++unigram_context_[w];
        ++bigram_types_[v];
        ++bigram_type_total_;
      }
    }
  }

  // P(w | u, v), the trigram level interpolated down to the bigram and unigram levels.
  double probability(int64_t u, int64_t v, int64_t w) const {
    const double uni = (std::max(get(unigram_context_, w) - kD, 0.0) +
                        kD * static_cast<double>(unigram_context_.size()) / static_cast<double>(v_)) /
                       static_cast<double>(bigram_type_total_);
    double bi = uni;
    if (const double total = get(context_total_, v); total > 0)
      bi = (std::max(get(context_count_, pair(v, w)) - kD, 0.0) + kD * get(bigram_types_, v) * uni) / total;
    const double total = get(tri_total_, pair(u, v));
    if (total == 0) return bi;
    return (std::max(get(tri_, key(u, v, w)) - kD, 0.0) + kD * get(tri_types_, pair(u, v)) * bi) / total;
  }

  // exp of the mean negative log probability of each word after its two predecessors.
  double perplexity(const std::vector<int64_t>& ids) const {
    double nll = 0;
    for (size_t i = 2; i < ids.size(); ++i) nll -= std::log(probability(ids[i - 2], ids[i - 1], ids[i]));
    return std::exp(nll / static_cast<double>(ids.size() - 2));
  }

 private:
  static constexpr double kD = 0.75;
  static uint64_t pair(uint64_t a, uint64_t b) { return a << 21 | b; }
  static uint64_t key(uint64_t a, uint64_t b, uint64_t c) { return a << 42 | b << 21 | c; }
  template <class Map>
  static double get(const Map& m, uint64_t k) {
    const auto it = m.find(k);
    return it == m.end() ? 0.0 : static_cast<double>(it->second);
  }
  int64_t v_;
  std::unordered_map<uint64_t, int64_t> tri_, tri_total_, tri_types_;  // c(uvw), c(uv.), N1+(uv.)
  std::unordered_map<uint64_t, int64_t> context_count_, context_total_;  // N1+(.vw), N1+(.v.)
  std::unordered_map<uint64_t, int64_t> bigram_types_, unigram_context_;  // N1+(v.) of middle level, N1+(.w)
  int64_t bigram_type_total_ = 0;                                          // N1+(..)
};
