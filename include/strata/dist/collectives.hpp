// Collective operations on tensors across the processes of the job (dist::init() first). Every
// process calls the same operations in the same order, with tensors of the same shape and
// dtype; a mismatch is found (one extra small reduction per call) and every process throws a
// strata::Error naming what differed. Tensors are float32 or float64 on the CPU.
#pragma once
#include "strata/core/tensor.hpp"

namespace strata::dist {

enum class ReduceOp { sum, avg };

// In place: t becomes the element-wise sum (or mean) of every process's t. t must be contiguous.
void all_reduce(Tensor& t, ReduceOp op = ReduceOp::sum);

// In place: t becomes root's t on every process. t must be contiguous.
void broadcast(Tensor& t, int root = 0);

// Every process's t stacked along a new first axis: [world size, t's shape...], rank order.
Tensor all_gather(const Tensor& t);

// Returns once every process has called it.
void barrier();

}  // namespace strata::dist
