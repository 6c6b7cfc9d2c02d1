#include "strata/autograd/node.hpp"

#include "autograd/gradient_sum.hpp"
#include "strata/autograd/grad_mode.hpp"
#include "strata/dispatch/elementwise.hpp"

namespace strata::autograd {

// Deleting a node releases its edges and the tensors its backward captured, which may hold the
// last reference to the node before it, and so on down the chain: deleted recursively, a chain
// of 200,000 ops overflowed the stack. A node whose deletion starts while this thread is already
// deleting one waits in a queue instead, and the outermost deletion empties it in a loop.
struct DeferredNodeDeleter {
  void operator()(Node* node) const noexcept {
    thread_local std::vector<Node*> waiting;
    thread_local bool deleting = false;
    if (deleting) {
      waiting.push_back(node);
      return;
    }
    deleting = true;
    delete node;
    while (!waiting.empty()) {
      Node* next = waiting.back();
      waiting.pop_back();
      delete next;
    }
    deleting = false;
  }
};

template <class N, class... Args>
static std::shared_ptr<N> make_node(Args&&... args) {
  return std::shared_ptr<N>(new N(std::forward<Args>(args)...), DeferredNodeDeleter{});
}

AutogradMeta& ensure_autograd_meta(const Tensor& t) {
  auto& m = t.impl()->autograd;
  if (!m) m = std::make_unique<AutogradMeta>();
  return static_cast<AutogradMeta&>(*m);
}

// Makes `t` output `nr` of `node` (a floating tensor; integer ones carry no gradient).
static void set_history(const Tensor& t, const std::shared_ptr<Node>& node, uint32_t nr) {
  if (!t.defined() || !is_floating(t.dtype())) return;
  AutogradMeta& m = ensure_autograd_meta(t);
  m.requires_grad = true;
  m.grad_fn = node;
  m.output_nr = nr;
}

static void add_output(Node& node, const Tensor& t) {
  node.outputs.push_back({t.defined() ? t.shape() : Shape(), t.defined() ? t.dtype() : kFloat32,
                          t.defined() ? t.device() : Device()});
  node.output_hooks.emplace_back();
}

std::vector<Tensor> FunctionNode::outputs_for_backward() {
  if (!grad_enabled()) return saved_outputs_;
  // create_graph: fresh views whose history is this node, so a formula that reads an output
  // (exp's g * y) is differentiated through the op that made it.
  std::vector<Tensor> outputs;
  for (uint32_t i = 0; i < saved_outputs_.size(); ++i) {
    outputs.push_back(saved_outputs_[i].detach());
    set_history(outputs.back(), shared_from_this(), i);
  }
  return outputs;
}

// Under create_graph, the gradients of an op whose backward is a fused kernel get a node that
// refuses a second backward, naming the op, instead of silently acting as constants.
static void refuse_second_backward(const char* op, std::vector<Tensor>& grads, const std::vector<Tensor>& grad_outputs,
                                   const std::vector<Edge>& inputs) {
  auto refusal = make_node<FunctionNode>(
      NodeKind{op, false},
      [op](const std::vector<Tensor>&, const std::vector<Tensor>&) -> std::vector<Tensor> {
        throw Error(std::string(op) +
                    ": second-order gradients are not supported (its backward is a fused kernel with no backward "
                    "of its own); the gradient from backward(create_graph=true) cannot be differentiated again "
                    "through it");
      },
      std::vector<Tensor>{});
  refusal->next = inputs;
  for (const Tensor& g : grad_outputs) refusal->next.push_back(gradient_edge(g));
  for (uint32_t i = 0; i < grads.size(); ++i) {
    if (grads[i].defined()) grads[i] = grads[i].detach();
    add_output(*refusal, grads[i]);
    set_history(grads[i], refusal, i);
  }
}

std::vector<Tensor> FunctionNode::apply(std::vector<Tensor>&& grad_outputs) {
  STRATA_CHECK(fn_ != nullptr, "backward through ", kind_.name,
               " a second time: its saved tensors were freed after the first backward; "
               "pass retain_graph=true to the first backward()");
  std::vector<Tensor> grads = fn_(grad_outputs, outputs_for_backward());
  if (!kind_.differentiable_backward && grad_enabled()) refuse_second_backward(kind_.name, grads, grad_outputs, next);
  return grads;
}

std::vector<Tensor> AccumulateGrad::apply(std::vector<Tensor>&& grad_outputs) {
  Tensor g = std::move(grad_outputs[0]);
  AutogradMeta& meta = *autograd_meta(*leaf_);
  for (auto& hook : meta.hooks) {
    Tensor replaced = hook(g);
    if (replaced.defined()) g = replaced;
  }
  if (grad_enabled()) {
    // create_graph: .grad() keeps its history (a gradient penalty reads it), so it is summed
    // out of place, as a recorded op.
    meta.grad = meta.grad.defined() ? sum_gradients(meta.grad, g) : g;
  } else if (!meta.grad.defined()) {
    // The gradient must own its buffer, since optimizers and later passes update it in place.
    // A fresh contiguous tensor that nothing else references (the usual case) is taken as is.
    bool sole_owner = g.impl_ptr().use_count() == 1 && g.impl()->storage.use_count() == 1 && g.is_contiguous() &&
                      g.offset() == 0;
    meta.grad = sole_owner ? g : dispatch::contiguous_copy(g);
  } else {
    dispatch::add_inplace(meta.grad, g);
  }
  if (!meta.post_accumulate_hooks.empty()) {
    const Tensor leaf(leaf_);
    for (auto& hook : meta.post_accumulate_hooks) hook(leaf);
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

Edge gradient_edge(const Tensor& t) {
  if (!t.defined() || !t.requires_grad()) return {};
  AutogradMeta& m = ensure_autograd_meta(t);
  if (m.grad_fn) return {m.grad_fn, m.output_nr};
  auto acc = m.grad_accumulator.lock();
  if (!acc) {
    auto node = make_node<AccumulateGrad>(t.impl_ptr());
    add_output(*node, t);
    m.grad_accumulator = node;
    acc = node;
  }
  return {acc, 0};
}

void record_node(NodeKind kind, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs, BackwardFn fn,
                 bool save_outputs) {
  std::vector<Tensor> saved;
  if (save_outputs)
    for (const Tensor& out : outputs) saved.push_back(out.defined() ? out.detach() : Tensor());
  auto node = make_node<FunctionNode>(kind, std::move(fn), std::move(saved));
  node->next.reserve(inputs.size());
  for (const Tensor& in : inputs) node->next.push_back(gradient_edge(in));
  node->outputs.reserve(outputs.size());
  for (uint32_t i = 0; i < outputs.size(); ++i) {
    add_output(*node, outputs[i]);
    set_history(outputs[i], node, i);
  }
}

}  // namespace strata::autograd
