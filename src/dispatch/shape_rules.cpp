// Result shapes and dtypes that every backend's kernels of a family agree on (the meta backend
// computes nothing else).
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

DType reduced_dtype(ReduceOp op, DType x) {
  const bool widen = (op == ReduceOp::sum || op == ReduceOp::prod) && !is_floating(x);
  return widen ? kInt64 : x;
}

}  // namespace strata::dispatch
