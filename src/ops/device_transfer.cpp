// to_device: moving a tensor between devices as a differentiable op, so that a model can train
// across a host/device boundary (the gradient makes the journey back).
#include "ops/op_common.hpp"
#include "strata/core/device_copy.hpp"
#include "strata/dispatch/elementwise.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata {

Tensor to_device(const Tensor& x, Device device) {
  ops::check_defined(x, "to_device");
  if (x.device() == device) return x;
  Tensor y = copy_contiguous_to(x.is_contiguous() ? x : dispatch::contiguous_copy(x), device);
  if (autograd::needs_grad({&x}))
    ops::record(ops::Op::to_device, {x}, {y},
                [from = x.device()](const ops::Grads& g) { return ops::Grads{to_device(g[0], from)}; });
  return y;
}

}  // namespace strata
