// The reverse-mode graph. Every differentiable op that sees an input requiring grad creates a
// Node: it knows where the gradients of its inputs go (`next`, one Edge per input) and turns the
// gradients of its outputs into gradients of its inputs (`apply`). Leaves end in AccumulateGrad,
// which adds into tensor.grad().
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::autograd {

class Node;

struct Edge {
  std::shared_ptr<Node> node;  // null: this input needs no gradient
  uint32_t input_nr = 0;       // which output of `node` the gradient belongs to
};

struct AutogradMeta {
  bool requires_grad = false;
  bool retains_grad = false;
  Tensor grad;
  std::shared_ptr<Node> grad_fn;  // null for leaves
  uint32_t output_nr = 0;
  std::weak_ptr<Node> grad_accumulator;  // a leaf's AccumulateGrad, reused across ops
  std::vector<GradHook> hooks;           // leaves only; non-leaf hooks live on grad_fn
};

class Node {
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

// The backward of an op written as a function of the output gradients; what the lambda
// captures is what the node saves.
using BackwardFn = std::function<std::vector<Tensor>(const std::vector<Tensor>& grad_outputs)>;

class FunctionNode : public Node {
 public:
  FunctionNode(const char* name, BackwardFn fn) : name_(name), fn_(std::move(fn)) {}
  const char* name() const override { return name_; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grad_outputs) override;
  void release() override { fn_ = nullptr; }

 private:
  const char* name_;
  BackwardFn fn_;
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

// Makes `outputs` the results of a new FunctionNode called `name` over `inputs`. Call only
// when needs_grad(inputs). Capture outputs in `fn` through saved(), never directly: a tensor
// that holds the node that holds it would never be freed.
void record(const char* name, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
            BackwardFn fn);
inline Tensor saved(const Tensor& output) { return output.detach(); }

// The gradient edge of a tensor: its grad_fn, or its leaf accumulator, or none.
Edge gradient_edge(const Tensor& t);

// Runs the backward pass from `roots` seeded with `grads` (see Tensor::backward).
void run_backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grads, bool retain_graph);

// The gradients of `outputs` w.r.t. `inputs` without touching .grad() (torch.autograd.grad).
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {}, bool retain_graph = false);

}  // namespace strata::autograd
