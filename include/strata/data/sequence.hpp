// Sequence preprocessing (TensorLayer's prepro for sequences): padding and truncating to one
// length, removing padding, start and end ids, masks. A sequence is a list of integer ids.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::data {

using Sequences = std::vector<std::vector<int64_t>>;

enum class PadSide { pre, post };

struct PadOptions {
  int64_t maxlen = -1;               // -1: the longest sequence's length
  PadSide padding = PadSide::post;   // where pad values go (TensorLayer's default: post)
  PadSide truncating = PadSide::pre; // which end a longer sequence loses (default: its start)
  int64_t value = 0;
};

// int64 [sequences, maxlen] (Keras' and TensorLayer's pad_sequences).
Tensor pad_sequences(const Sequences& sequences, const PadOptions& options = {});
// The rows of an int64 or int32 [N, L] tensor as sequences.
Sequences to_sequences(const Tensor& padded);

// Each sequence without its trailing pad_id values.
Sequences remove_pad_sequences(const Sequences& sequences, int64_t pad_id = 0);
// start_id put first; remove_last drops each sequence's last id so lengths stay the same.
Sequences sequences_add_start_id(const Sequences& sequences, int64_t start_id = 0, bool remove_last = false);
Sequences sequences_add_end_id(const Sequences& sequences, int64_t end_id = 888);
// end_id written over the first pad_id (lengths stay the same; a sequence without padding is
// unchanged): [[1, 2, 0, 0]] -> [[1, 2, end_id, 0]].
Sequences sequences_add_end_id_after_pad(const Sequences& sequences, int64_t end_id = 888, int64_t pad_id = 0);
// int64 [N, longest]: 1 up to each sequence's last id that is not pad_val, 0 after it (padding
// inside a sequence stays 1, as in TensorLayer).
Tensor sequences_get_mask(const Sequences& sequences, int64_t pad_val = 0);

}  // namespace strata::data
