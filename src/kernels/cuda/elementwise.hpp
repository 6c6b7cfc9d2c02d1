// The CUDA backend's element-wise families, each with its stub's signature.
// STRATA_CUDA_ELEMENTWISE_STUBS lists the ones implemented (families.hpp registers them).
#pragma once
#include "kernels/cuda/portable.hpp"
#include "strata/dispatch/elementwise.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

Tensor unary(dispatch::UnaryOp op, const Tensor& x, double a, double b);
Tensor binary(dispatch::BinaryOp op, const Tensor& a, const Tensor& b);
void binary_inplace(dispatch::BinaryOp op, Tensor& a, const Tensor& b);
void add_scaled_inplace(Tensor& a, const Tensor& b, double alpha);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
void copy_into(Tensor& dst, const Tensor& src);
Tensor contiguous_copy(const Tensor& x);
// x itself when contiguous, else contiguous_copy(x): for kernels that index their operands flat.
Tensor dense(const Tensor& x);
Tensor cast(const Tensor& x, DType dtype);
void fill(Tensor& t, double value);

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda

#define STRATA_CUDA_ELEMENTWISE_STUBS(X) \
  X(copy_into) X(contiguous_copy) X(cast) X(fill) X(unary) X(binary) X(binary_inplace) X(add_scaled_inplace) X(where)
