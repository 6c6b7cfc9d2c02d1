// The reverse-mode graph. Every differentiable op that sees an input requiring grad creates a
// Node: it knows where the gradients of its inputs go (`next`, one Edge per input) and turns the
// gradients of its outputs into gradients of its inputs (`apply`). Leaves end in AccumulateGrad,
// which adds into tensor.grad().
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <type_traits>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::autograd {

class Node;

struct Edge {
  std::shared_ptr<Node> node;  // null: this input needs no gradient
  uint32_t input_nr = 0;       // which output of `node` the gradient belongs to
};

struct AutogradMeta : AutogradMetaInterface {
  bool requires_grad = false;
  bool retains_grad = false;
  Tensor grad;
  std::shared_ptr<Node> grad_fn;  // null for leaves
  uint32_t output_nr = 0;
  std::weak_ptr<Node> grad_accumulator;  // a leaf's AccumulateGrad, reused across ops
  std::vector<GradHook> hooks;           // leaves only; non-leaf hooks live on grad_fn
  // Leaves only: run after a backward pass has added into .grad() (post_accumulate_hook.hpp).
  std::vector<std::function<void(const Tensor& leaf)>> post_accumulate_hooks;
};

// A tensor's metadata, or null before autograd touched it (core holds it by its interface).
inline AutogradMeta* autograd_meta(const TensorImpl& impl) { return static_cast<AutogradMeta*>(impl.autograd.get()); }
// A tensor's metadata, made on first use.
AutogradMeta& ensure_autograd_meta(const Tensor& t);

class Node : public std::enable_shared_from_this<Node> {
 public:
  virtual ~Node() = default;
  virtual const char* name() const = 0;
  // Gradients w.r.t. this node's outputs -> gradients w.r.t. its inputs (one per `next` edge;
  // undefined where an input needs none). Missing output gradients arrive as zeros.
  virtual std::vector<Tensor> apply(std::vector<Tensor>&& grad_outputs) = 0;
  // Frees what the backward pass needed (saved tensors), after a pass without retain_graph.
  virtual void release() {}

  std::vector<Edge> next;
  struct OutputMeta {
    Shape shape;
    DType dtype;
    Device device;  // where a missing gradient's zeros are made
  };
  std::vector<OutputMeta> outputs;
  std::vector<std::vector<GradHook>> output_hooks;  // per output: hooks of non-leaf tensors
};

// What recorded a node: a name for errors, and whether its backward is itself differentiable.
// False for fused backward kernels: under create_graph their gradients carry a node that throws,
// naming the op, when a second backward reaches it.
struct NodeKind {
  const char* name;
  bool differentiable_backward = true;
};

// The backward of an op: gradients w.r.t. its outputs, and the outputs themselves (empty unless
// the op asked to keep them), -> gradients w.r.t. its inputs. What the function captures is
// what the node saves, so it should capture only what the formula reads.
using BackwardFn = std::function<std::vector<Tensor>(const std::vector<Tensor>& grad_outputs,
                                                     const std::vector<Tensor>& outputs)>;

class FunctionNode : public Node {
 public:
  // `saved_outputs`: the outputs' data (no history), for formulas written in terms of the output.
  FunctionNode(NodeKind kind, BackwardFn fn, std::vector<Tensor> saved_outputs)
      : kind_(kind), fn_(std::move(fn)), saved_outputs_(std::move(saved_outputs)) {}
  const char* name() const override { return kind_.name; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grad_outputs) override;
  void release() override {
    fn_ = nullptr;
    saved_outputs_.clear();
  }

 private:
  std::vector<Tensor> outputs_for_backward();

  NodeKind kind_;
  BackwardFn fn_;
  std::vector<Tensor> saved_outputs_;
};

class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(std::shared_ptr<TensorImpl> leaf) : leaf_(std::move(leaf)) {}
  const char* name() const override { return "AccumulateGrad"; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grad_outputs) override;

 private:
  std::shared_ptr<TensorImpl> leaf_;
};

// True when grad mode is on and any of `inputs` requires grad.
bool needs_grad(std::initializer_list<const Tensor*> inputs);
bool needs_grad(const std::vector<Tensor>& inputs);

// Makes `outputs` the results of a new FunctionNode over `inputs`. Call only when
// needs_grad(inputs). `fn` takes the output gradients, or the output gradients and the outputs;
// only the second form keeps the outputs' data alive until backward. Under create_graph the
// outputs it receives carry this node as their history, so formulas in them stay differentiable
// (capturing an output tensor itself would make a cycle: output -> node -> output).
void record_node(NodeKind kind, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs, BackwardFn fn,
                 bool save_outputs);

template <class Fn>
void record(NodeKind kind, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs, Fn&& fn) {
  using Grads = std::vector<Tensor>;
  if constexpr (std::is_invocable_v<Fn&, const Grads&, const Grads&>) {
    record_node(kind, inputs, outputs, BackwardFn(std::forward<Fn>(fn)), true);
  } else {
    record_node(
        kind, inputs, outputs, [f = std::forward<Fn>(fn)](const Grads& g, const Grads&) { return f(g); }, false);
  }
}

// The gradient edge of a tensor: its grad_fn, or its leaf accumulator, or none.
Edge gradient_edge(const Tensor& t);

// Runs the backward pass from `roots` seeded with `grads` (see Tensor::backward). With
// create_graph the pass records its own graph (grad mode on), so the gradients it produces can be
// differentiated again; it then keeps this graph as retain_graph would.
void run_backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grads, bool retain_graph,
                  bool create_graph = false);

// Tensor::backward with create_graph (torch.autograd.backward): backpropagates from `root` into
// the leaves' .grad(). A scalar root needs no `grad`; others need one of its shape. With
// create_graph the .grad() it leaves can be differentiated again.
void backward(const Tensor& root, const Tensor& grad = Tensor(), bool retain_graph = false, bool create_graph = false);

// The gradients of `outputs` w.r.t. `inputs` without touching .grad() (torch.autograd.grad).
// With create_graph they are differentiable tensors: grad of grad gives second derivatives
// (Hessian-vector products, gradient penalties, MAML).
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {}, bool retain_graph = false,
                         bool create_graph = false);

}  // namespace strata::autograd
