#include "strata/autograd/node.hpp"

#include "strata/autograd/grad_mode.hpp"
#include "strata/dispatch/elementwise.hpp"

namespace strata::autograd {

std::vector<Tensor> FunctionNode::apply(std::vector<Tensor>&& grad_outputs) {
  STRATA_CHECK(fn_ != nullptr, "backward through ", name_,
               " a second time: its saved tensors were freed after the first backward; "
               "pass retain_graph=true to the first backward()");
  return fn_(grad_outputs);
}

std::vector<Tensor> AccumulateGrad::apply(std::vector<Tensor>&& grad_outputs) {
  Tensor g = std::move(grad_outputs[0]);
  AutogradMeta& meta = *leaf_->autograd;
  for (auto& hook : meta.hooks) {
    Tensor replaced = hook(g);
    if (replaced.defined()) g = replaced;
  }
  if (!meta.grad.defined()) {
    // The gradient must own its buffer, since optimizers and later passes update it in place.
    // A fresh contiguous tensor that nothing else references (the usual case) is taken as is.
    bool sole_owner = g.impl_ptr().use_count() == 1 && g.impl()->storage.use_count() == 1 && g.is_contiguous() &&
                      g.offset() == 0;
    meta.grad = sole_owner ? g : dispatch::contiguous_copy(g);
  } else {
    dispatch::add_inplace(meta.grad, g);
  }
  return {};
}

bool needs_grad(std::initializer_list<const Tensor*> inputs) {
  if (!grad_enabled()) return false;
  for (const Tensor* t : inputs)
    if (t->defined() && t->requires_grad()) return true;
  return false;
}

bool needs_grad(const std::vector<Tensor>& inputs) {
  if (!grad_enabled()) return false;
  for (const Tensor& t : inputs)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

static AutogradMeta& meta_of(const Tensor& t) {
  auto& m = t.impl()->autograd;
  if (!m) m = std::make_unique<AutogradMeta>();
  return *m;
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined() || !t.requires_grad()) return {};
  AutogradMeta& m = meta_of(t);
  if (m.grad_fn) return {m.grad_fn, m.output_nr};
  auto acc = m.grad_accumulator.lock();
  if (!acc) {
    auto node = std::make_shared<AccumulateGrad>(t.impl_ptr());
    node->outputs.push_back({t.shape(), t.dtype(), t.device()});
    node->output_hooks.resize(1);
    m.grad_accumulator = node;
    acc = node;
  }
  return {acc, 0};
}

void record(const char* name, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
            BackwardFn fn) {
  auto node = std::make_shared<FunctionNode>(name, std::move(fn));
  node->next.reserve(inputs.size());
  for (const Tensor& in : inputs) node->next.push_back(gradient_edge(in));
  node->outputs.reserve(outputs.size());
  node->output_hooks.resize(outputs.size());
  for (uint32_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    node->outputs.push_back({out.shape(), out.dtype(), out.device()});
    if (!out.defined() || !is_floating(out.dtype())) continue;  // integer outputs carry no gradient
    AutogradMeta& m = meta_of(out);
    m.requires_grad = true;
    m.grad_fn = node;
    m.output_nr = i;
  }
}

}  // namespace strata::autograd
