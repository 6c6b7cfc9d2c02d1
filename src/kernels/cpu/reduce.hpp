// Reduction CPU kernels: the CPU rows of strata/dispatch/reduce.hpp, which documents them.
#pragma once
#include <vector>

#include "strata/dispatch/reduce.hpp"

namespace strata::kernels::cpu {

using dispatch::ReduceOp;

Tensor reduce(ReduceOp op, const Tensor& x, const std::vector<bool>& mask, bool keepdim);
Tensor arg_reduce(bool is_max, const Tensor& x, int axis, bool keepdim);
Tensor cumsum(const Tensor& x, int axis, bool reverse);

}  // namespace strata::kernels::cpu
