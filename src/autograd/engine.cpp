// The backward pass: count how many edges lead into each node reachable from the roots, then
// run nodes as soon as every gradient flowing into them has arrived (Kahn's algorithm), summing
// gradients that reach the same output from several uses.
#include <unordered_map>
#include <unordered_set>

#include "autograd/gradient_sum.hpp"
#include "strata/autograd/grad_mode.hpp"
#include "strata/autograd/node.hpp"
#include "strata/core/factory.hpp"

namespace strata::autograd {
namespace {

struct Capture {  // for grad(): the gradient arriving at (node, input_nr) is the answer
  Node* node;
  uint32_t input_nr;
};

void accumulate(Tensor& slot, const Tensor& g) {
  if (!g.defined()) return;
  if (!slot.defined()) {
    slot = g;
  } else {
    slot = sum_gradients(slot, g);
  }
}

std::unordered_map<Node*, int> count_dependencies(const std::vector<Node*>& roots) {
  std::unordered_map<Node*, int> deps;
  std::unordered_set<Node*> seen(roots.begin(), roots.end());
  std::vector<Node*> stack(roots.begin(), roots.end());
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next) {
      if (!e.node) continue;
      deps[e.node.get()]++;
      if (seen.insert(e.node.get()).second) stack.push_back(e.node.get());
    }
  }
  return deps;
}

// Runs the graph; when `captures` is non-empty, gradients reaching them are returned instead of
// accumulated into leaves.
std::vector<Tensor> execute(const std::vector<Tensor>& roots, const std::vector<Tensor>& seeds, bool retain_graph,
                            bool create_graph, const std::vector<Capture>& captures) {
  STRATA_CHECK(roots.size() == seeds.size(), "backward: ", roots.size(), " outputs but ", seeds.size(),
               " gradients");
  // The pass records history only for create_graph; its new graph reads this one's saved
  // tensors, so they are kept.
  GradModeGuard record_history(create_graph);
  retain_graph = retain_graph || create_graph;
  std::unordered_map<Node*, std::vector<Tensor>> buffers;
  std::vector<std::shared_ptr<Node>> root_nodes;
  std::vector<Node*> root_ptrs;
  for (size_t i = 0; i < roots.size(); ++i) {
    Edge e = gradient_edge(roots[i]);
    STRATA_CHECK(e.node != nullptr, "backward: output ", i,
                 " does not require grad and has no grad_fn (was it computed under NoGradGuard, "
                 "or from tensors without requires_grad?)");
    auto& buf = buffers[e.node.get()];
    buf.resize(e.node->outputs.size());
    accumulate(buf[e.input_nr], seeds[i]);
    root_nodes.push_back(e.node);
    root_ptrs.push_back(e.node.get());
  }
  auto deps = count_dependencies(root_ptrs);
  std::vector<Tensor> captured(captures.size());
  std::vector<std::shared_ptr<Node>> ready;
  std::unordered_set<Node*> queued;
  for (auto& n : root_nodes)
    if (deps[n.get()] == 0 && queued.insert(n.get()).second) ready.push_back(n);

  while (!ready.empty()) {
    std::shared_ptr<Node> node = std::move(ready.back());
    ready.pop_back();
    std::vector<Tensor> grads = std::move(buffers[node.get()]);
    buffers.erase(node.get());
    grads.resize(node->outputs.size());
    for (size_t k = 0; k < grads.size(); ++k) {
      if (!grads[k].defined()) grads[k] = zeros(node->outputs[k].shape, {node->outputs[k].dtype, node->outputs[k].device});
      for (auto& hook : node->output_hooks[k]) {
        Tensor replaced = hook(grads[k]);
        if (replaced.defined()) grads[k] = replaced;
      }
    }
    bool is_leaf = dynamic_cast<AccumulateGrad*>(node.get()) != nullptr;
    for (size_t c = 0; c < captures.size(); ++c)
      if (captures[c].node == node.get()) captured[c] = grads[captures[c].input_nr];
    if (is_leaf && !captures.empty()) continue;  // grad() leaves .grad() alone

    std::vector<Tensor> input_grads = node->apply(std::move(grads));
    if (!retain_graph) node->release();
    for (size_t i = 0; i < node->next.size() && i < input_grads.size(); ++i) {
      const Edge& e = node->next[i];
      if (!e.node) continue;
      auto& buf = buffers[e.node.get()];
      buf.resize(e.node->outputs.size());
      const Tensor& g = input_grads[i];
      if (g.defined()) {
        const auto& want = e.node->outputs[e.input_nr];
        STRATA_CHECK(g.shape() == want.shape, "backward of ", node->name(), ": gradient for input ", i,
                     " has shape ", g.shape().str(), " but the input has shape ", want.shape.str());
      }
      accumulate(buf[e.input_nr], g);
      if (--deps[e.node.get()] == 0) ready.push_back(e.node);
    }
  }
  return captured;
}

}  // namespace

void run_backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grads, bool retain_graph,
                  bool create_graph) {
  execute(roots, grads, retain_graph, create_graph, {});
}

void backward(const Tensor& root, const Tensor& grad, bool retain_graph, bool create_graph) {
  Tensor seed = grad;
  if (!seed.defined()) {
    STRATA_CHECK(root.numel() == 1, "backward: implicit gradient needs a scalar output, got shape ", root.shape().str(),
                 "; pass a gradient of that shape");
    seed = ones_like(root);
  }
  STRATA_CHECK(seed.shape() == root.shape(), "backward: gradient of shape ", seed.shape().str(),
               " for an output of shape ", root.shape().str());
  run_backward({root}, {seed}, retain_graph, create_graph);
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, bool retain_graph, bool create_graph) {
  std::vector<Tensor> seeds = grad_outputs;
  if (seeds.empty())
    for (const Tensor& o : outputs) {
      STRATA_CHECK(o.numel() == 1, "grad: output of shape ", o.shape().str(),
                   " is not a scalar; pass grad_outputs");
      seeds.push_back(ones_like(o));
    }
  std::vector<Capture> captures;
  std::vector<std::shared_ptr<Node>> keep;  // captured accumulators must live through the pass
  for (const Tensor& in : inputs) {
    Edge e = gradient_edge(in);
    STRATA_CHECK(e.node != nullptr, "grad: an input does not require grad");
    captures.push_back({e.node.get(), e.input_nr});
    keep.push_back(e.node);
  }
  std::vector<Tensor> out = execute(outputs, seeds, retain_graph, create_graph, captures);
  for (size_t i = 0; i < out.size(); ++i)
    if (!out[i].defined()) out[i] = zeros_like(inputs[i]);
  return out;
}

}  // namespace strata::autograd
