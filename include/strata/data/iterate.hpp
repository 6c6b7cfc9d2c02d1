// TensorLayer's iterate helpers: mini-batches over whole arrays, sequence mini-batches, and the
// PTB language-model iterator. Each returns every batch at once (copies; arrays are slices of
// memory-resident data, as in TensorLayer).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::data {

struct InputTargetBatch {
  Tensor inputs, targets;
};

// Consecutive batch_size slices of axis 0 (in a random order of examples with a seed); a last
// smaller batch is dropped unless allow_smaller_last. inputs and targets share axis 0's size.
std::vector<InputTargetBatch> minibatches(const Tensor& inputs, const Tensor& targets, int64_t batch_size,
                                          std::optional<uint64_t> shuffle_seed = std::nullopt,
                                          bool allow_smaller_last = false);

// For sequence models: each batch is batch_size windows of seq_length consecutive examples, the
// windows starting `stride` apart, flattened to [batch_size * seq_length, ...]. The next batch
// starts batch_size * stride examples later.
std::vector<InputTargetBatch> seq_minibatches(const Tensor& inputs, const Tensor& targets, int64_t batch_size,
                                              int64_t seq_length, int64_t stride = 1);

// PTB language-model batches: the word ids are cut into batch_size rows of len / batch_size,
// and each step takes num_steps columns as inputs and the same shifted by one as targets
// (int64 [batch_size, num_steps] each). Throws when a row is too short for a single step.
std::vector<InputTargetBatch> ptb_iterator(const std::vector<int64_t>& raw_data, int64_t batch_size, int64_t num_steps);

}  // namespace strata::data
