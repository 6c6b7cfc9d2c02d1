// TensorLayer's process_sequences: what follows each sequence's first end id becomes padding.
#include <algorithm>

#include "strata/vision/prepro.hpp"

namespace strata::vision {

std::vector<std::vector<int64_t>> process_sequences(std::vector<std::vector<int64_t>> sequences, int64_t end_id,
                                                    int64_t pad_val, bool is_shorten, bool remain_end_id) {
  size_t max_length = 0;  // the latest first end id over the sequences (0 when none has one)
  for (auto& seq : sequences) {
    bool ended = false;
    for (size_t i = 0; i < seq.size(); ++i) {
      if (!ended && seq[i] == end_id) {
        ended = true;
        max_length = std::max(max_length, i);
        if (!remain_end_id) seq[i] = pad_val;
      } else if (ended) {
        seq[i] = pad_val;
      }
    }
  }
  if (remain_end_id) ++max_length;
  if (is_shorten)
    for (auto& seq : sequences) seq.resize(std::min(seq.size(), max_length));
  return sequences;
}

}  // namespace strata::vision
