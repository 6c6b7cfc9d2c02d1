// PyTorch's fused in-place updates (addcmul_, addcdiv_, lerp_, ...) composed from strata's
// in-place ops, so each optimizer reads like its torch.optim formula. Called under NoGradGuard.
#pragma once
#include "strata/core/factory.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::optim::detail {

inline Tensor& add_scalar_(Tensor& t, double v) { return add_(t, scalar_tensor(v, t.options())); }
// t += value * a * b
inline Tensor& addcmul_(Tensor& t, const Tensor& a, const Tensor& b, double value) { return add_(t, a * b, value); }
// t += value * a / b
inline Tensor& addcdiv_(Tensor& t, const Tensor& a, const Tensor& b, double value) { return add_(t, a / b, value); }
// t += weight * (end - t)
inline Tensor& lerp_(Tensor& t, const Tensor& end, double weight) { return add_(t, end - t, weight); }
// t = max(t, other)
inline Tensor& maximum_(Tensor& t, const Tensor& other) { return copy_(t, maximum(t, other)); }

}  // namespace strata::optim::detail
