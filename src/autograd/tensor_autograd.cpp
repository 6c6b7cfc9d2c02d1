// Tensor's autograd methods: they live here, with the graph they manipulate.
#include "strata/autograd/grad_mode.hpp"
#include "strata/autograd/node.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata {

using autograd::autograd_meta;
using autograd::ensure_autograd_meta;

bool Tensor::requires_grad() const {
  auto* m = autograd_meta(*impl_);
  return m && m->requires_grad;
}

Tensor& Tensor::requires_grad_(bool on) {
  STRATA_CHECK(!on || is_floating(dtype()), "requires_grad_: only float tensors can require gradients, this one is ",
               dtype_name(dtype()));
  STRATA_CHECK(is_leaf(), "requires_grad_: can only be changed on leaf tensors (use detach() first)");
  ensure_autograd_meta(*this).requires_grad = on;
  return *this;
}

Tensor Tensor::grad() const {
  auto* m = autograd_meta(*impl_);
  return m ? m->grad : Tensor();
}

void Tensor::set_grad(const Tensor& g) {
  STRATA_CHECK(!g.defined() || g.shape() == shape(), "set_grad: gradient of shape ", g.defined() ? g.shape().str() : "",
               " for a tensor of shape ", shape().str());
  ensure_autograd_meta(*this).grad = g;
}

void Tensor::zero_grad() {
  if (auto* m = autograd_meta(*impl_)) m->grad = Tensor();
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  auto* m = autograd_meta(*impl_);
  return m ? m->grad_fn : nullptr;
}

void Tensor::backward(const Tensor& grad, bool retain_graph) const {
  autograd::backward(*this, grad, retain_graph);
}

void Tensor::register_hook(GradHook hook) {
  STRATA_CHECK(requires_grad(), "register_hook: the tensor does not require grad");
  auto& m = ensure_autograd_meta(*this);
  if (m.grad_fn) m.grad_fn->output_hooks[m.output_nr].push_back(std::move(hook));
  else m.hooks.push_back(std::move(hook));
}

void Tensor::retain_grad() {
  STRATA_CHECK(requires_grad(), "retain_grad: the tensor does not require grad");
  auto& m = ensure_autograd_meta(*this);
  if (!m.grad_fn || m.retains_grad) return;
  m.retains_grad = true;
  std::weak_ptr<TensorImpl> self = impl_;  // weak: the node must not keep its own output alive
  register_hook([self](const Tensor& g) {
    if (auto impl = self.lock()) {
      auto& mm = *autograd_meta(*impl);
      mm.grad = mm.grad.defined() ? mm.grad + g : g;
    }
    return Tensor();
  });
}

Tensor Tensor::detach() const { return as_strided(shape(), strides(), offset()); }

}  // namespace strata
