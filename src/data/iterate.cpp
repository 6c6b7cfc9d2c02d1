#include "strata/data/iterate.hpp"

#include <numeric>

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/factory.hpp"
#include "strata/data/dataset.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/shape.hpp"

namespace strata::data {

namespace {

void check_pair(const Tensor& inputs, const Tensor& targets, const char* op) {
  STRATA_CHECK(inputs.defined() && targets.defined() && inputs.dim() >= 1 && targets.dim() >= 1, op,
               ": expected inputs and targets of rank >= 1");
  STRATA_CHECK(inputs.size(0) == targets.size(0), op, ": inputs have ", inputs.size(0), " examples but targets ",
               targets.size(0));
}

}  // namespace

std::vector<InputTargetBatch> minibatches(const Tensor& inputs, const Tensor& targets, int64_t batch_size,
                                          std::optional<uint64_t> shuffle_seed, bool allow_smaller_last) {
  check_pair(inputs, targets, "minibatches");
  STRATA_CHECK(batch_size >= 1, "minibatches: batch_size must be >= 1, got ", batch_size);
  NoGradGuard no_grad;
  const int64_t n = inputs.size(0);
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (shuffle_seed) order = permutation(n, *shuffle_seed);
  std::vector<InputTargetBatch> out;
  for (int64_t start = 0; start < n; start += batch_size) {
    const int64_t count = std::min(batch_size, n - start);
    if (count < batch_size && !allow_smaller_last) break;
    Tensor index = from_vector(std::vector<int64_t>(order.begin() + start, order.begin() + start + count));
    out.push_back({index_select(inputs, 0, index), index_select(targets, 0, index)});
  }
  return out;
}

std::vector<InputTargetBatch> seq_minibatches(const Tensor& inputs, const Tensor& targets, int64_t batch_size,
                                              int64_t seq_length, int64_t stride) {
  check_pair(inputs, targets, "seq_minibatches");
  STRATA_CHECK(batch_size >= 1 && seq_length >= 1 && stride >= 1,
               "seq_minibatches: batch_size, seq_length and stride must be >= 1, got ", batch_size, ", ", seq_length,
               ", ", stride);
  NoGradGuard no_grad;
  const int64_t loads = batch_size * stride + seq_length - stride;  // examples one batch reads
  std::vector<InputTargetBatch> out;
  for (int64_t start = 0; start + loads <= inputs.size(0); start += batch_size * stride) {
    std::vector<int64_t> index;
    for (int64_t b = 0; b < batch_size; ++b)
      for (int64_t t = 0; t < seq_length; ++t) index.push_back(start + b * stride + t);
    const Tensor idx = from_vector(index);
    out.push_back({index_select(inputs, 0, idx), index_select(targets, 0, idx)});
  }
  return out;
}

std::vector<InputTargetBatch> ptb_iterator(const std::vector<int64_t>& raw_data, int64_t batch_size, int64_t num_steps) {
  STRATA_CHECK(batch_size >= 1 && num_steps >= 1, "ptb_iterator: batch_size and num_steps must be >= 1, got ",
               batch_size, " and ", num_steps);
  const int64_t batch_len = static_cast<int64_t>(raw_data.size()) / batch_size;
  const int64_t steps = (batch_len - 1) / num_steps;
  STRATA_CHECK(steps >= 1, "ptb_iterator: ", raw_data.size(), " words make rows of ", batch_len,
               " for batch_size ", batch_size, ", too short for one step of num_steps ", num_steps,
               " (decrease batch_size or num_steps)");
  NoGradGuard no_grad;
  const Tensor rows = from_vector(std::vector<int64_t>(raw_data.begin(), raw_data.begin() + batch_size * batch_len),
                                  {batch_size, batch_len});
  std::vector<InputTargetBatch> out;
  for (int64_t i = 0; i < steps; ++i)
    out.push_back({narrow(rows, 1, i * num_steps, num_steps).contiguous(),
                   narrow(rows, 1, i * num_steps + 1, num_steps).contiguous()});
  return out;
}

}  // namespace strata::data
