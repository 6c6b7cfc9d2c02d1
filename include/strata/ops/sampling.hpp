// Drawing class ids from distributions: multinomial sampling from probabilities, categorical
// sampling from logits (with a temperature) and top-k sampling, as a language model's text
// generation needs. The draws are made on the host from a Generator (the default one when
// null), so a seed gives the same ids on every device; results are int64 on the input's device
// and carry no gradient.
#pragma once
#include <cstdint>

#include "strata/core/factory.hpp"
#include "strata/core/tensor.hpp"

namespace strata {

// `num_samples` ids per row of probs [C] or [N, C] -> int64 [num_samples] or [N, num_samples]
// (torch.multinomial). Rows need not sum to 1 but must be finite, >= 0 and not all 0. Without
// replacement a row must have at least num_samples non-zero entries.
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement = true, Generator* gen = nullptr);

// One id per row of logits [C] or [N, C] -> int64 [] or [N], drawn from softmax(logits / temperature)
// (tf.random.categorical with one sample). temperature > 0: below 1 sharpens, above 1 flattens.
Tensor sample_categorical(const Tensor& logits, double temperature = 1.0, Generator* gen = nullptr);

// Like sample_categorical, but only among each row's k largest logits (ties broken by position),
// the rest given probability 0; 1 <= k <= C. k = 1 is greedy decoding.
Tensor sample_top_k(const Tensor& logits, int64_t k, double temperature = 1.0, Generator* gen = nullptr);

}  // namespace strata
