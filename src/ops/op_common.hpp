// Shared by the op sources: checks and the autograd recording shorthand.
#pragma once
#include <vector>

#include "strata/autograd/grad_mode.hpp"
#include "strata/autograd/node.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/registry.hpp"

namespace strata::ops {

using Grads = std::vector<Tensor>;

// Makes `outputs` the results of `op`'s node (see autograd::record); only ops in the table can.
template <class Fn>
void record(Op op, const Grads& inputs, const Grads& outputs, Fn&& fn) {
  const OpInfo& info = op_info(op);
  autograd::record({info.name, info.order == BackwardOrder::any}, inputs, outputs, std::forward<Fn>(fn));
}

// Records the node of a backward op of `op`: a fused backward kernel run as an op of its own
// under create_graph, whose backward `fn` (in differentiable ops) makes `op` differentiable twice.
template <class Fn>
void record_backward(Op op, const Grads& inputs, const Grads& outputs, Fn&& fn) {
  autograd::record({op_info(op).backward_name, true}, inputs, outputs, std::forward<Fn>(fn));
}

inline void check_defined(const Tensor& t, const char* op, const char* arg = "input") {
  STRATA_CHECK(t.defined(), op, ": ", arg, " is an undefined tensor");
}

inline void check_floating(const Tensor& t, const char* op) {
  STRATA_CHECK(is_floating(t.dtype()), op, ": expected a float32 or float64 tensor, got ", dtype_name(t.dtype()));
}

// Two defined float tensors of the same shape and dtype (a loss's input and target).
inline void check_pair(const char* op, const Tensor& x, const Tensor& t, const char* x_name, const char* t_name) {
  check_defined(x, op, x_name);
  check_defined(t, op, t_name);
  check_floating(x, op);
  STRATA_CHECK(x.shape() == t.shape(), op, ": ", t_name, " must have the shape of ", x_name, " ", x.shape().str(),
               ", got ", t.shape().str());
  STRATA_CHECK(x.dtype() == t.dtype(), op, ": ", t_name, " must have the dtype of ", x_name, " (",
               dtype_name(x.dtype()), "), got ", dtype_name(t.dtype()));
}

// Axes (possibly negative, empty = all) -> a sorted, de-duplicated mask over x's dimensions.
std::vector<bool> axes_mask(const std::vector<int64_t>& axes, int ndim, const char* op);

}  // namespace strata::ops
