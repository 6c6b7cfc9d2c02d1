// The reduction kernel families: sum / prod / max / min over axes, arg-max / arg-min, prefix sums.
#pragma once
#include <vector>

#include "strata/dispatch/stub.hpp"

namespace strata::dispatch {

enum class ReduceOp { sum, prod, max, min };

// The result shape of reducing the axes where mask[d] is true (kept as size 1 with keepdim).
Shape reduced_shape(const Shape& shape, const std::vector<bool>& mask, bool keepdim);
// The result dtype: sum and prod of integers and bools give int64, all else keeps x's dtype.
DType reduced_dtype(ReduceOp op, DType x);
// What every backend's `reduce` does when each output reduces `reduced_count` == 0 elements: sum
// gives 0 and prod 1 (written into `out` through the fill stub), max and min raise naming
// x_shape. Returns whether it wrote `out` (false when reduced_count > 0).
bool reduce_empty_range(ReduceOp op, const Shape& x_shape, int64_t reduced_count, Tensor& out);

// Reduces the axes where mask[d] is true.
extern Stub<Tensor(ReduceOp op, const Tensor& x, const std::vector<bool>& mask, bool keepdim)> reduce;
// Index of the first max (or min) along `axis`, as int64.
extern Stub<Tensor(bool is_max, const Tensor& x, int axis, bool keepdim)> arg_reduce;
// Inclusive prefix sums along `axis` (from the end when reverse).
extern Stub<Tensor(const Tensor& x, int axis, bool reverse)> cumsum;

}  // namespace strata::dispatch
