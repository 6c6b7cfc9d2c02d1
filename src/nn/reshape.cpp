#include "strata/nn/reshape.hpp"

#include "strata/ops/shape.hpp"

namespace strata::nn {

Tensor Flatten::forward(const Tensor& x) {
  expect(x.dim() >= 1, "expects a batch axis, got a scalar");
  return x.dim() == 1 ? reshape(x, {x.size(0), 1}) : flatten(x, 1);
}

Tensor Reshape::forward(const Tensor& x) {
  Shape target{x.size(0)};
  for (int64_t d : shape_) target.push_back(d);
  return reshape(x, target);
}

}  // namespace strata::nn
