// The element-wise kernel families: unary and broadcasting binary maps, the ternary `where`,
// in-place updates, copies, casts and fills. Raw tensors, no autograd: strata/ops wraps them
// with shape checks and backward formulas.
#pragma once
#include "strata/core/unary_ops.hpp"
#include "strata/dispatch/stub.hpp"

namespace strata::dispatch {

// The unary maps, y = op(x, a, b) with a and b the op's parameters: the list in
// core/unary_ops.hpp, which also gives each op's name, dtypes and formula.
enum class UnaryOp {
#define STRATA_UNARY_ENUMERATOR(ctx, op, ...) op,
  STRATA_UNARY_OP_LIST(STRATA_UNARY_ENUMERATOR, )
#undef STRATA_UNARY_ENUMERATOR
};
#define STRATA_UNARY_COUNT(ctx, op, ...) +1
inline constexpr int kUnaryOpCount = 0 STRATA_UNARY_OP_LIST(STRATA_UNARY_COUNT, );
#undef STRATA_UNARY_COUNT

// The dtypes an op takes (its list's dtypes column): float32/float64; integers too; any, giving bool.
enum class UnaryDtypes { floats, numbers, logical };
constexpr UnaryDtypes unary_dtypes(UnaryOp op) {
  switch (op) {
#define STRATA_UNARY_DTYPES(ctx, op, name, dtypes, ...) \
  case UnaryOp::op:                                     \
    return UnaryDtypes::dtypes;
    STRATA_UNARY_OP_LIST(STRATA_UNARY_DTYPES, )
#undef STRATA_UNARY_DTYPES
  }
  return UnaryDtypes::floats;
}

// The binary maps, one list: X(op, kind) with kind arith (type promotion, the result in the common
// dtype) | compare (gives bool) | fused (a backward helper, (grad, saved) -> grad_in, one pass
// instead of two or three; saved is the forward's output).
#define STRATA_BINARY_OP_LIST(X)                                                                                  \
  X(add, arith) X(sub, arith) X(mul, arith) X(div, arith) X(pow, arith) X(maximum, arith) X(minimum, arith)        \
  X(eq, compare) X(ne, compare) X(lt, compare) X(le, compare) X(gt, compare) X(ge, compare) X(logical_and, compare) \
  X(logical_or, compare) X(relu_backward, fused) X(sigmoid_backward, fused) X(tanh_backward, fused)
enum class BinaryOp {
#define STRATA_BINARY_ENUMERATOR(op, kind) op,
  STRATA_BINARY_OP_LIST(STRATA_BINARY_ENUMERATOR)
#undef STRATA_BINARY_ENUMERATOR
};
#define STRATA_BINARY_COUNT(op, kind) +1
inline constexpr int kBinaryOpCount = 0 STRATA_BINARY_OP_LIST(STRATA_BINARY_COUNT);
#undef STRATA_BINARY_COUNT

const char* unary_name(UnaryOp op);
const char* binary_name(BinaryOp op);
bool is_comparison(BinaryOp op);
// The dtype of op(x): bool for the logical ops, x's otherwise.
DType unary_result_dtype(UnaryOp op, DType x);
// A rule every backend applies: x's dtype is one that op takes, or an Error naming op.
void check_unary(UnaryOp op, DType x);
// Rules every backend applies: an in-place `op` is arithmetic and needs `src` to broadcast to
// the target's shape; so does a copy.
void check_inplace(BinaryOp op, const Shape& target, const Shape& src);
void check_copy_shape(const Shape& dst, const Shape& src);
// A new contiguous tensor on x's device with x's values converted to `dtype`, through the
// copy_into stub: every backend's contiguous_copy and cast.
Tensor copy_as(const Tensor& x, DType dtype);

// y = op(x, a, b) on the dtypes op takes (check_unary), in x's dtype or bool (unary_result_dtype).
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
