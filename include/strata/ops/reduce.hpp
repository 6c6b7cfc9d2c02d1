// Reductions over any set of axes (empty = all axes), with keepdim; cumulative sums.
#pragma once
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata {

using Axes = std::vector<int64_t>;

Tensor sum(const Tensor& x, const Axes& axes = {}, bool keepdim = false);
Tensor mean(const Tensor& x, const Axes& axes = {}, bool keepdim = false);
Tensor prod(const Tensor& x, const Axes& axes = {}, bool keepdim = false);
// Gradients of max/min go to the maximal elements, split evenly between ties.
Tensor amax(const Tensor& x, const Axes& axes = {}, bool keepdim = false);
Tensor amin(const Tensor& x, const Axes& axes = {}, bool keepdim = false);
inline Tensor max(const Tensor& x, const Axes& axes = {}, bool keepdim = false) { return amax(x, axes, keepdim); }
inline Tensor min(const Tensor& x, const Axes& axes = {}, bool keepdim = false) { return amin(x, axes, keepdim); }
// Index (int64) of the first maximal / minimal element along one axis.
Tensor argmax(const Tensor& x, int64_t axis, bool keepdim = false);
Tensor argmin(const Tensor& x, int64_t axis, bool keepdim = false);
// Variance with `correction` (1 = unbiased, PyTorch's default; 0 = population, NumPy's).
Tensor var(const Tensor& x, const Axes& axes = {}, int64_t correction = 1, bool keepdim = false);
Tensor std(const Tensor& x, const Axes& axes = {}, int64_t correction = 1, bool keepdim = false);
Tensor norm(const Tensor& x, double p = 2, const Axes& axes = {}, bool keepdim = false);  // p-norm, p > 0
Tensor logsumexp(const Tensor& x, const Axes& axes = {}, bool keepdim = false);
Tensor cumsum(const Tensor& x, int64_t axis);

// Sums g over the axes that broadcasting expanded, giving a tensor of `shape` (the gradient
// of a broadcast operand).
Tensor sum_to(const Tensor& g, const Shape& shape);

}  // namespace strata
