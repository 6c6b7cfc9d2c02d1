// TensorLayer's utils.class_balancing_oversample: every class repeated up to the size of the
// largest, for training on unbalanced labels.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::data {

struct BalancedExamples {
  Tensor x;                     // float64 [classes * largest, D]
  std::vector<int64_t> labels;  // one per row of x
};

// x [N, D] (any dtype) with labels [N]. Classes come in Counter.most_common order (most
// examples first, ties by first appearance); each class's rows, in their order, are repeated
// whole until there are at least as many as the largest class has, then cut to that many.
BalancedExamples class_balancing_oversample(const Tensor& x, const std::vector<int64_t>& labels);

}  // namespace strata::data
