#include "strata/data/seq_minibatches2.hpp"

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/error.hpp"
#include "strata/ops/shape.hpp"

namespace strata::data {

std::vector<InputTargetBatch> seq_minibatches2(const Tensor& inputs, const Tensor& targets, int64_t batch_size,
                                               int64_t num_steps) {
  STRATA_CHECK(inputs.defined() && targets.defined() && inputs.dim() >= 1 && targets.dim() == 1 &&
                   inputs.size(0) == targets.size(0),
               "seq_minibatches2: expected inputs [N, ...] and targets [N] of the same N, got ",
               inputs.defined() ? inputs.shape().str() : "undefined", " and ",
               targets.defined() ? targets.shape().str() : "undefined");
  STRATA_CHECK(batch_size >= 1 && num_steps >= 1, "seq_minibatches2: batch_size and num_steps must be >= 1, got ",
               batch_size, " and ", num_steps);
  const int64_t batch_len = inputs.size(0) / batch_size, batches = (batch_len - 1) / num_steps;
  STRATA_CHECK(batch_len >= 1 && batches >= 1, "seq_minibatches2: ", inputs.size(0), " examples make rows of ",
               batch_len, " for batch_size ", batch_size, ", too short for one batch of num_steps ", num_steps);
  NoGradGuard no_grad;
  Shape rows = inputs.shape();
  rows[0] = batch_len;
  rows.insert(0, batch_size);
  const Tensor x = narrow(inputs, 0, 0, batch_size * batch_len).contiguous().reshape(rows);
  const Tensor y =
      narrow(targets, 0, 0, batch_size * batch_len).to(kFloat64).contiguous().reshape({batch_size, batch_len});
  std::vector<InputTargetBatch> out;
  for (int64_t i = 0; i < batches; ++i)
    out.push_back(
        {narrow(x, 1, i * num_steps, num_steps).contiguous(), narrow(y, 1, i * num_steps, num_steps).contiguous()});
  return out;
}

}  // namespace strata::data
