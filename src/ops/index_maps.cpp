#include "ops/index_maps.hpp"

namespace strata::ops {

Tensor take(Op op, const Tensor& x, const Shape& shape, const dispatch::AxisMaps& maps) {
  Tensor y = dispatch::take_axes(x, shape, maps);
  if (autograd::needs_grad({&x}))
    record(op, {x}, {y},
           [op, maps, xshape = x.shape()](const Grads& g) { return Grads{put_add(op, g[0], maps, xshape)}; });
  return y;
}

Tensor put_add(Op op, const Tensor& g, const dispatch::AxisMaps& maps, const Shape& shape) {
  Tensor y = dispatch::put_add_axes(g, maps, shape);
  if (autograd::needs_grad({&g}))
    record_backward(op, {g}, {y},
                    [op, maps, gshape = g.shape()](const Grads& gg) { return Grads{take(op, gg[0], gshape, maps)}; });
  return y;
}

}  // namespace strata::ops
