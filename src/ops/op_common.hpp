// Shared by the op sources: checks and the autograd recording shorthand.
#pragma once
#include <vector>

#include "strata/autograd/grad_mode.hpp"
#include "strata/autograd/node.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/registry.hpp"

namespace strata::ops {

using Grads = std::vector<Tensor>;

inline void check_defined(const Tensor& t, const char* op, const char* arg = "input") {
  STRATA_CHECK(t.defined(), op, ": ", arg, " is an undefined tensor");
}

inline void check_floating(const Tensor& t, const char* op) {
  STRATA_CHECK(is_floating(t.dtype()), op, ": expected a float32 or float64 tensor, got ", dtype_name(t.dtype()));
}

// Axes (possibly negative, empty = all) -> a sorted, de-duplicated mask over x's dimensions.
std::vector<bool> axes_mask(const std::vector<int64_t>& axes, int ndim, const char* op);

}  // namespace strata::ops
