#include "strata/autograd/post_accumulate_hook.hpp"

#include "strata/autograd/node.hpp"
#include "strata/core/error.hpp"

namespace strata::autograd {

void register_post_accumulate_grad_hook(Tensor& leaf, std::function<void(const Tensor& leaf)> hook) {
  STRATA_CHECK(leaf.defined() && leaf.requires_grad() && leaf.is_leaf(),
               "register_post_accumulate_grad_hook: expected a leaf tensor that requires grad (a weight)");
  STRATA_CHECK(hook != nullptr, "register_post_accumulate_grad_hook: the hook is empty");
  autograd_meta(*leaf.impl())->post_accumulate_hooks.push_back(std::move(hook));
}

void clear_post_accumulate_grad_hooks(Tensor& leaf) {
  if (!leaf.defined()) return;
  if (auto* m = autograd_meta(*leaf.impl())) m->post_accumulate_hooks.clear();
}

}  // namespace strata::autograd
