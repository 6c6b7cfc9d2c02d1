// The element-wise kernel families: unary and broadcasting binary maps, the ternary `where`,
// in-place updates, copies, casts and fills. Raw tensors, no autograd: strata/ops wraps them
// with shape checks and backward formulas.
#pragma once
#include "strata/dispatch/stub.hpp"

namespace strata::dispatch {

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
// Rules every backend applies: an in-place `op` is arithmetic and needs `src` to broadcast to
// the target's shape; so does a copy.
void check_inplace(BinaryOp op, const Shape& target, const Shape& src);
void check_copy_shape(const Shape& dst, const Shape& src);
// A new contiguous tensor on x's device with x's values converted to `dtype`, through the
// copy_into stub: every backend's contiguous_copy and cast.
Tensor copy_as(const Tensor& x, DType dtype);

// y = op(x, a, b). Integer inputs are accepted by the ops that make sense on them (neg, abs,
// sign, square, relu, clamp, logical_not); others need float32/float64. logical_not gives bool.
extern Stub<Tensor(UnaryOp op, const Tensor& x, double a, double b)> unary;
// out = op(a, b) with NumPy broadcasting and type promotion; comparisons give bool.
extern Stub<Tensor(BinaryOp op, const Tensor& a, const Tensor& b)> binary;
// a = op(a, b), b broadcast to a's shape and converted to a's dtype.
extern Stub<void(BinaryOp op, Tensor& a, const Tensor& b)> binary_inplace;
// a += alpha * b in one pass (the SGD update), b broadcast to a's shape.
extern Stub<void(Tensor& a, const Tensor& b, double alpha)> add_scaled_inplace;
// cond ? a : b, broadcasting all three.
extern Stub<Tensor(const Tensor& cond, const Tensor& a, const Tensor& b)> where;
// Writes src (broadcast to dst's shape, converted to dst's dtype) into dst, which may be a view.
extern Stub<void(Tensor& dst, const Tensor& src)> copy_into;
extern Stub<Tensor(const Tensor& x)> contiguous_copy;
extern Stub<Tensor(const Tensor& x, DType dtype)> cast;
extern Stub<void(Tensor& t, double value)> fill;

inline Tensor add(const Tensor& a, const Tensor& b) { return binary(BinaryOp::add, a, b); }
inline void add_inplace(Tensor& a, const Tensor& b) { binary_inplace(BinaryOp::add, a, b); }

}  // namespace strata::dispatch
