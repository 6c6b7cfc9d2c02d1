// Element-wise CPU kernels: the CPU rows of strata/dispatch/elementwise.hpp, which documents
// them. Kernels of this backend call each other directly.
#pragma once
#include "strata/dispatch/elementwise.hpp"

namespace strata::kernels::cpu {

using dispatch::BinaryOp;
using dispatch::binary_name;
using dispatch::is_comparison;
using dispatch::unary_name;
using dispatch::UnaryOp;

Tensor unary(UnaryOp op, const Tensor& x, double a, double b);
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b);
void binary_inplace(BinaryOp op, Tensor& a, const Tensor& b);
inline Tensor add(const Tensor& a, const Tensor& b) { return binary(BinaryOp::add, a, b); }
inline void add_inplace(Tensor& a, const Tensor& b) { binary_inplace(BinaryOp::add, a, b); }
void add_scaled_inplace(Tensor& a, const Tensor& b, double alpha);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
void copy_into(Tensor& dst, const Tensor& src);
Tensor contiguous_copy(const Tensor& x);
// The tensor itself when contiguous (or undefined: an absent bias), else a contiguous copy:
// kernels that index flat take this.
inline Tensor dense(const Tensor& t) { return !t.defined() || t.is_contiguous() ? t : contiguous_copy(t); }
Tensor cast(const Tensor& x, DType dtype);
void fill(Tensor& t, double value);

}  // namespace strata::kernels::cpu
