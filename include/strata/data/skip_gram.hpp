// Skip-gram training pairs for word2vec (TensorLayer's nlp.generate_skip_gram_batch): each
// centre word paired with num_skips distinct words drawn from the skip_window words either side.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/core/factory.hpp"
#include "strata/core/tensor.hpp"

namespace strata::data {

struct SkipGramBatch {
  Tensor inputs;       // int64 [batch_size]: centre words, each repeated num_skips times
  Tensor labels;       // int64 [batch_size, 1]: a context word of the input beside it
  int64_t data_index;  // pass to the next call to continue where this batch ended
};

// Reads words from data[data_index] on, wrapping round at the end. Requires batch_size to be a
// multiple of num_skips, and num_skips <= 2 * skip_window; data must hold a whole window.
SkipGramBatch generate_skip_gram_batch(const std::vector<int64_t>& data, int64_t batch_size, int64_t num_skips,
                                       int64_t skip_window, int64_t data_index = 0,
                                       Generator& gen = default_generator());

}  // namespace strata::data
