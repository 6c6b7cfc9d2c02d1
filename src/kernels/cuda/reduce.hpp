// The CUDA backend's reduction and softmax families, each with its stub's signature. STRATA_CUDA_REDUCE_STUBS lists
// the ones implemented (families.hpp registers them).
#pragma once
#include <vector>

#include "kernels/cuda/indexer.hpp"
#include "kernels/cuda/portable.hpp"
#include "strata/dispatch/reduce.hpp"
#include "strata/dispatch/softmax.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

Tensor reduce(dispatch::ReduceOp op, const Tensor& x, const std::vector<bool>& mask, bool keepdim);
Tensor arg_reduce(bool is_max, const Tensor& x, int axis, bool keepdim);
Tensor cumsum(const Tensor& x, int axis, bool reverse);
Tensor softmax_forward(const Tensor& x, int axis, bool log);
Tensor softmax_backward(const Tensor& grad_y, const Tensor& y, int axis, bool log);

// The axes of t where mask[d] == picked, in order, with t's strides; size-1 axes are dropped and
// neighbours that step through memory evenly merged, so a contiguous range costs one division
// per element. With picked = false, position i is where the i-th output's row starts; with
// picked = true, position r is where the r-th reduced element lies from there.
Indexer masked_indexer(const Tensor& t, const std::vector<bool>& mask, bool picked);
// Row starts of t along `axis` (every axis but `axis`); a scalar is one row.
Indexer rows_along(const Tensor& t, int axis);

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda

#define STRATA_CUDA_REDUCE_STUBS(X) X(reduce) X(arg_reduce) X(cumsum) X(softmax_forward) X(softmax_backward)
