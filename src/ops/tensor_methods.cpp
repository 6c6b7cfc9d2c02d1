// Tensor's method sugar: each forwards to the functional op of the same name.
#include "strata/core/tensor.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata {

Tensor Tensor::reshape(const Shape& shape) const { return strata::reshape(*this, shape); }
Tensor Tensor::view(const Shape& shape) const { return strata::view(*this, shape); }
Tensor Tensor::flatten(int64_t s, int64_t e) const { return strata::flatten(*this, s, e); }
Tensor Tensor::permute(const Shape& order) const { return strata::permute(*this, order); }
Tensor Tensor::transpose(int64_t a, int64_t b) const { return strata::transpose(*this, a, b); }
Tensor Tensor::squeeze(int64_t axis) const { return strata::squeeze(*this, axis); }
Tensor Tensor::unsqueeze(int64_t axis) const { return strata::unsqueeze(*this, axis); }
Tensor Tensor::narrow(int64_t axis, int64_t start, int64_t length) const {
  return strata::narrow(*this, axis, start, length);
}
Tensor Tensor::select(int64_t axis, int64_t index) const { return strata::select(*this, axis, index); }
Tensor Tensor::expand(const Shape& shape) const { return strata::expand(*this, shape); }
Tensor Tensor::contiguous() const { return strata::contiguous(*this); }
Tensor Tensor::clone() const { return strata::clone(*this); }
Tensor Tensor::to(DType dtype) const { return strata::cast(*this, dtype); }
Tensor Tensor::to(Device device) const { return strata::to_device(*this, device); }
Tensor Tensor::sum() const { return strata::sum(*this); }
Tensor Tensor::mean() const { return strata::mean(*this); }

}  // namespace strata
