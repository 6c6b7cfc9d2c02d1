// TensorLayer's iterate.seq_minibatches2: the PTB iterator's layout for paired inputs and targets
// (not in iterate.hpp, which the data umbrella includes, to keep its rebuild small).
#pragma once
#include <cstdint>
#include <vector>

#include "strata/data/iterate.hpp"

namespace strata::data {

// inputs [N, ...] and targets [N] are each cut into batch_size rows of N / batch_size
// consecutive examples; batch i is columns [i num_steps, (i + 1) num_steps) of both:
// inputs [batch_size, num_steps, ...] (their dtype) and targets float64 [batch_size, num_steps]
// (TensorLayer's np.zeros). (N / batch_size - 1) / num_steps batches; none is an error.
std::vector<InputTargetBatch> seq_minibatches2(const Tensor& inputs, const Tensor& targets, int64_t batch_size,
                                               int64_t num_steps);

}  // namespace strata::data
