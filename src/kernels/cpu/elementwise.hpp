// Element-wise CPU kernels on raw tensors (no autograd): unary maps, broadcasting binary
// maps, casts and copies. strata/ops wraps them with shape checks and backward formulas.
#pragma once
#include "strata/core/tensor.hpp"

namespace strata::kernels::cpu {

enum class UnaryOp {
  neg, abs, exp, log, log1p, expm1, sqrt, rsqrt, square, reciprocal, sin, cos, tanh, sigmoid,
  relu, relu6, leaky_relu /*a = slope*/, elu /*a = alpha*/, selu, gelu, softplus, softsign, silu,
  mish, hard_sigmoid, hard_tanh, sign, floor, ceil, round, clamp /*a = low, b = high*/,
  logical_not, pow_scalar /*a = exponent*/,
};

enum class BinaryOp {
  add, sub, mul, div, pow, maximum, minimum,
  eq, ne, lt, le, gt, ge, logical_and, logical_or,  // produce bool
  // Fused backward helpers, (grad, saved) -> grad_in, one pass instead of two or three.
  relu_backward /*saved = output*/, sigmoid_backward /*saved = output*/, tanh_backward /*saved = output*/,
};

const char* unary_name(UnaryOp op);
const char* binary_name(BinaryOp op);
bool is_comparison(BinaryOp op);

// y = op(x). Integer inputs are accepted by the ops that make sense on them (neg, abs, sign,
// square, relu, clamp, logical_not); others need float32/float64.
Tensor unary(UnaryOp op, const Tensor& x, double a = 0, double b = 0);
// out = op(a, b) with NumPy broadcasting and type promotion.
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b);
// a = op(a, b), b broadcast to a's shape and converted to a's dtype.
void binary_inplace(BinaryOp op, Tensor& a, const Tensor& b);
inline Tensor add(const Tensor& a, const Tensor& b) { return binary(BinaryOp::add, a, b); }
inline void add_inplace(Tensor& a, const Tensor& b) { binary_inplace(BinaryOp::add, a, b); }
// a += alpha * b in one pass (the SGD update), b broadcast to a's shape.
void add_scaled_inplace(Tensor& a, const Tensor& b, double alpha);

// cond ? a : b, broadcasting all three.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
// Writes src (broadcast to dst's shape, converted to dst's dtype) into dst, which may be a view.
void copy_into(Tensor& dst, const Tensor& src);
Tensor contiguous_copy(const Tensor& x);
Tensor cast(const Tensor& x, DType dtype);
void fill(Tensor& t, double value);

}  // namespace strata::kernels::cpu
