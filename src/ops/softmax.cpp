// softmax and log_softmax: one fused kernel forward, one backward (softmax_kernels).
#include "strata/ops/softmax.hpp"

#include "ops/op_common.hpp"
#include "strata/dispatch/softmax.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"

namespace strata {
namespace {

using ops::Grads;
using ops::Op;

// The fused backward kernel as an op of its own: under create_graph it records its backward in
// differentiable ops (the adjoint in g and the derivative in y of dx = backward(g, y)).
Tensor softmax_backward(Op op, const Tensor& g, const Tensor& y, int ax, bool log) {
  Tensor dx = dispatch::softmax_backward(g, y, ax, log);
  if (autograd::needs_grad({&g, &y}))
    ops::record_backward(op, {g, y}, {dx}, [op, g, y, ax, log](const Grads& gg) {
      const Tensor& u = gg[0];
      if (log) {
        // dx = g - e^y sum(g): the adjoint in g is u - sum(u e^y); the derivative in y, -u e^y sum(g).
        Tensor p = exp(y);
        return Grads{u - sum(u * p, {ax}, true), -(u * p * sum(g, {ax}, true))};
      }
      // dx = y (g - sum(g y)) is symmetric in g, so its adjoint is the same backward; in y it is
      // u (g - sum(g y)) - g sum(u y).
      return Grads{softmax_backward(op, u, y, ax, false),
                   u * (g - sum(g * y, {ax}, true)) - g * sum(u * y, {ax}, true)};
    });
  return dx;
}

Tensor softmax_op(Op op, const Tensor& x, int64_t axis, bool log) {
  const char* name = ops::op_name(op);
  ops::check_defined(x, name);
  ops::check_floating(x, name);
  STRATA_CHECK(x.dim() > 0, name, ": expected a tensor with at least one dimension, got a scalar");
  const int ax = normalize_axis(axis, x.dim(), name);
  Tensor y = dispatch::softmax_forward(x, ax, log);
  if (autograd::needs_grad({&x}))
    ops::record(op, {x}, {y}, [op, ax, log](const Grads& g, const Grads& out) {
      return Grads{softmax_backward(op, g[0], out[0], ax, log)};
    });
  return y;
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t axis) { return softmax_op(Op::softmax, x, axis, false); }
Tensor log_softmax(const Tensor& x, int64_t axis) { return softmax_op(Op::log_softmax, x, axis, true); }

}  // namespace strata
