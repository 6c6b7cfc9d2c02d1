// Batching: how batch() stacks examples into one example of batched tensors.
#pragma once
#include <vector>

#include "strata/data/example.hpp"

namespace strata::data {

struct BatchOptions {
  // Drop a last batch smaller than the batch size (so every batch has the same shape).
  bool drop_last = false;
  // Pad tensors whose first axis differs between examples (variable-length sequences) to the
  // longest in the batch, with pad_value at the end; without it such a batch is an error.
  bool pad = false;
  double pad_value = 0;
};

// Stacks field j of every example along a new axis 0. All examples must have the same number
// of fields, and each field the same dtype and shape (up to axis 0 when options.pad is set).
Example collate(const std::vector<Example>& examples, const BatchOptions& options = {});

}  // namespace strata::data
