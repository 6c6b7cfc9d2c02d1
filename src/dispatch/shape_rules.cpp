// Result shapes and dtypes that every backend's kernels of a family agree on (the meta backend
// computes nothing else), and the checks and edge cases they share.
#include "strata/dispatch/elementwise.hpp"
#include "strata/dispatch/reduce.hpp"

namespace strata::dispatch {

Shape reduced_shape(const Shape& shape, const std::vector<bool>& mask, bool keepdim) {
  Shape out;
  for (int d = 0; d < shape.size(); ++d) {
    if (!mask[d]) out.push_back(shape[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

DType unary_result_dtype(UnaryOp op, DType x) { return unary_dtypes(op) == UnaryDtypes::logical ? kBool : x; }

void check_unary(UnaryOp op, DType x) {
  const UnaryDtypes takes = unary_dtypes(op);
  if (takes == UnaryDtypes::logical) return;
  STRATA_CHECK(x != kBool, unary_name(op), ": not defined for bool tensors");
  STRATA_CHECK(takes == UnaryDtypes::numbers || is_floating(x), unary_name(op),
               ": expected a float32 or float64 tensor, got ", dtype_name(x));
}

void check_inplace(BinaryOp op, const Shape& target, const Shape& src) {
  const char* name = binary_name(op);
  STRATA_CHECK(!is_comparison(op), name, "_: comparisons have no in-place form");
  const Shape shape = broadcast_shapes(target, src, name);
  STRATA_CHECK(shape == target, name, "_: the result shape ", shape.str(), " differs from the in-place target's shape ",
               target.str());
}

void check_copy_shape(const Shape& dst, const Shape& src) {
  const Shape shape = broadcast_shapes(dst, src, "copy");
  STRATA_CHECK(shape == dst, "copy: cannot write a tensor of shape ", src.str(), " into one of shape ", dst.str());
}

bool reduce_empty_range(ReduceOp op, const Shape& x_shape, int64_t reduced_count, Tensor& out) {
  if (reduced_count > 0) return false;
  STRATA_CHECK(op == ReduceOp::sum || op == ReduceOp::prod, "max/min: cannot reduce an empty axis (shape ",
               x_shape.str(), ")");
  fill(out, op == ReduceOp::sum ? 0 : 1);
  return true;
}

Tensor copy_as(const Tensor& x, DType dtype) {
  Tensor out = Tensor::empty(x.shape(), dtype, x.device());
  copy_into(out, x);
  return out;
}

DType reduced_dtype(ReduceOp op, DType x) {
  const bool widen = (op == ReduceOp::sum || op == ReduceOp::prod) && !is_floating(x);
  return widen ? kInt64 : x;
}

}  // namespace strata::dispatch
