// Masks and lengths of zero-padded sequence batches (TensorLayer's retrieve_seq_length_op3,
// target_mask_op, and tf.sequence_mask).
#include <string>

#include "strata/nn/layers/recurrent.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {

Tensor target_mask(const Tensor& data, double pad_value) {
  STRATA_CHECK(data.defined() && (data.dim() == 2 || data.dim() == 3),
               "target_mask: expected data [batch, time] or [batch, time, features], got ",
               data.defined() ? data.shape().str() : std::string("an undefined tensor"));
  Tensor valid = cast(ne(data, full_like(data, pad_value)), kInt64);
  if (data.dim() == 3) valid = cast(sum(valid, {2}) > 0.0, kInt64);
  return valid;
}

Tensor retrieve_seq_length(const Tensor& data, double pad_value) {
  STRATA_CHECK(data.defined() && (data.dim() == 2 || data.dim() == 3),
               "retrieve_seq_length: expected data [batch, time] or [batch, time, features], got ",
               data.defined() ? data.shape().str() : std::string("an undefined tensor"));
  return sum(target_mask(data, pad_value), {1});
}

Tensor sequence_mask(const Tensor& lengths, int64_t time, DType dtype) {
  STRATA_CHECK(lengths.defined() && lengths.dim() == 1, "sequence_mask: expected lengths [batch], got ",
               lengths.defined() ? lengths.shape().str() : std::string("an undefined tensor"));
  for (int64_t n : lengths.to_vector<int64_t>())
    STRATA_CHECK(n >= 0 && n <= time, "sequence_mask: expected lengths in [0, ", time, "] (the time steps), got ", n);
  Tensor steps = unsqueeze(arange(time), 0), ends = unsqueeze(cast(lengths, kInt64), 1);
  return cast(lt(steps, ends), dtype);
}

}  // namespace strata::nn
