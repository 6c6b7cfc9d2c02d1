// softmax and log_softmax: one fused kernel forward, one backward (softmax_kernels).
#include "strata/ops/softmax.hpp"

#include "ops/op_common.hpp"
#include "strata/dispatch/softmax.hpp"

namespace strata {
namespace {

Tensor softmax_op(const char* name, const Tensor& x, int64_t axis, bool log) {
  ops::check_defined(x, name);
  ops::check_floating(x, name);
  STRATA_CHECK(x.dim() > 0, name, ": expected a tensor with at least one dimension, got a scalar");
  const int ax = normalize_axis(axis, x.dim(), name);
  Tensor y = dispatch::softmax_forward(x, ax, log);
  if (autograd::needs_grad({&x}))
    autograd::record(name, {x}, {y}, [y = autograd::saved(y), ax, log](const ops::Grads& g) {
      return ops::Grads{dispatch::softmax_backward(g[0], y, ax, log)};
    });
  return y;
}

}  // namespace

STRATA_REGISTER_OPS("softmax", "log_softmax");

Tensor softmax(const Tensor& x, int64_t axis) { return softmax_op("softmax", x, axis, false); }
Tensor log_softmax(const Tensor& x, int64_t axis) { return softmax_op("log_softmax", x, axis, true); }

}  // namespace strata
