// Sorting and top-k along one axis. The gradient of the values is scattered back to the
// positions the indices name.
#include "strata/ops/sort.hpp"

#include "ops/op_common.hpp"
#include "strata/dispatch/index.hpp"
#include "strata/ops/indexing.hpp"

namespace strata {
namespace {

using ops::Grads;

ValuesAndIndices sort_op(ops::Op op, const Tensor& x, int ax, int64_t k, bool descending) {
  auto [values, indices] = dispatch::sort_along(x, ax, k, descending);
  if (autograd::needs_grad({&x}))
    // An init-capture: clang 14 (the sanitizer build) cannot capture a structured binding.
    ops::record(op, {x}, {values}, [indices = indices, ax, xshape = x.shape()](const Grads& g) {
      return Grads{scatter_add(zeros(xshape, g[0].options()), ax, indices, g[0])};
    });
  return {values, indices};
}

}  // namespace

ValuesAndIndices sort(const Tensor& x, int64_t axis, bool descending) {
  ops::check_defined(x, "sort");
  const int ax = normalize_axis(axis, x.dim(), "sort");
  return sort_op(ops::Op::sort, x, ax, x.dim() ? x.shape()[ax] : 1, descending);
}

Tensor argsort(const Tensor& x, int64_t axis, bool descending) {
  ops::check_defined(x, "argsort");
  const int ax = normalize_axis(axis, x.dim(), "argsort");
  return dispatch::sort_along(x, ax, x.dim() ? x.shape()[ax] : 1, descending).second;
}

ValuesAndIndices topk(const Tensor& x, int64_t k, int64_t axis, bool largest, bool sorted) {
  (void)sorted;  // the k elements always come out sorted
  ops::check_defined(x, "topk");
  const int ax = normalize_axis(axis, x.dim(), "topk");
  const int64_t n = x.dim() ? x.shape()[ax] : 1;
  STRATA_CHECK(k >= 0 && k <= n, "topk: k = ", k, " is out of range for axis ", ax, " of size ", n, " (shape ",
               x.shape().str(), ")");
  return sort_op(ops::Op::topk, x, ax, k, largest);
}

}  // namespace strata
