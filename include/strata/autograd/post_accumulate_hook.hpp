// Post-accumulate gradient hooks (PyTorch's register_post_accumulate_grad_hook): code that runs
// as soon as a backward pass has added a leaf's gradient into its .grad(), while the rest of the
// pass is still running. Data parallelism starts reducing a weight's gradient from here, so that
// communication overlaps the backward of the layers below it.
#pragma once
#include <functional>

#include "strata/core/tensor.hpp"

namespace strata::autograd {

// `hook(leaf)` runs after each backward pass that reaches `leaf` has updated leaf.grad(); the
// hook may read or change the gradient in place. Hooks run in the order registered, on the
// thread running backward. Requires a leaf tensor that requires grad (a weight).
void register_post_accumulate_grad_hook(Tensor& leaf, std::function<void(const Tensor& leaf)> hook);

// Removes every post-accumulate hook of `leaf` (a data-parallel wrapper that goes away).
void clear_post_accumulate_grad_hooks(Tensor& leaf);

}  // namespace strata::autograd
