// Reduction CPU kernels on raw tensors (no autograd).
#pragma once
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::kernels::cpu {

enum class ReduceOp { sum, prod, max, min };

// Reduces the axes where mask[d] is true. Sum/prod of integers and bools give int64.
Tensor reduce(ReduceOp op, const Tensor& x, const std::vector<bool>& mask, bool keepdim);
// Index of the first max (or min) along `axis`, as int64.
Tensor arg_reduce(bool is_max, const Tensor& x, int axis, bool keepdim);
// Inclusive prefix sums along `axis` (from the end when reverse).
Tensor cumsum(const Tensor& x, int axis, bool reverse);

}  // namespace strata::kernels::cpu
