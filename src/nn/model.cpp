#include "strata/nn/model.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/eval_scope.hpp"

namespace strata::nn {

struct SymbolNode {
  std::string name;                    // inputs only
  std::shared_ptr<Layer> owned;        // a temporary layer moved into the graph
  Layer* layer = nullptr;              // null for an input
  std::vector<std::shared_ptr<SymbolNode>> args;
  Shape shape;                         // -1 for the batch
  Tensor probe;                        // batch-1 and shape-only (meta device): the shapes that flow
};

const Shape& Symbol::shape() const { return node_->shape; }

Symbol Input(const Shape& shape, std::string name, DType dtype) {
  auto node = std::make_shared<SymbolNode>();
  node->name = name.empty() ? "input" : std::move(name);
  node->shape = shape;
  Shape probe_shape = shape;
  for (int d = 0; d < probe_shape.size(); ++d) {
    STRATA_CHECK(probe_shape[d] > 0 || (d == 0 && probe_shape[d] == -1), "Input: invalid shape ", shape.str(),
                 " (only the first axis may be -1)");
    if (probe_shape[d] == -1) probe_shape[d] = 1;
  }
  node->probe = Tensor::empty(probe_shape, dtype, kMeta);
  return Symbol(node);
}

// Runs `layer` on probes in eval mode without autograd, so that it builds and shows its output
// shape without updating statistics (batch norm) or dropping (dropout).
static Tensor run_probe(Layer& layer, const std::vector<Tensor>& probes) {
  NoGradGuard no_grad;
  EvalScope eval(layer);
  return probes.size() == 1 ? layer(probes[0]) : layer(probes);
}

// Learns the layer's output shape from shape-only (meta) probes, which compute nothing and
// allocate no activations. A layer using an op with no shape-only path (it reads data: NoDataError)
// runs once on real batch-1 zeros instead; its output goes on as a meta probe.
static Tensor shape_probe(Layer& layer, const std::vector<Tensor>& probes) {
  try {
    return run_probe(layer, probes);
  } catch (const NoDataError&) {
    std::vector<Tensor> real;
    for (const Tensor& p : probes) real.push_back(zeros(p.shape(), p.dtype()));
    const Tensor out = run_probe(layer, real);
    return Tensor::empty(out.shape(), out.dtype(), kMeta);
  }
}

// Runs `layer` on the arguments' probes and records the result as a new symbol.
static Symbol record(Layer& layer, std::shared_ptr<Layer> owned, const std::vector<Symbol>& xs) {
  auto node = std::make_shared<SymbolNode>();
  node->layer = &layer;
  node->owned = std::move(owned);
  bool dynamic_batch = false;
  std::vector<Tensor> probes;
  for (const Symbol& x : xs) {
    node->args.push_back(x.node());
    probes.push_back(x.node()->probe);
    dynamic_batch = dynamic_batch || (x.shape().size() > 0 && x.shape()[0] == -1);
  }
  node->probe = shape_probe(layer, probes);
  node->shape = node->probe.shape();
  if (dynamic_batch && node->shape.size() > 0) node->shape[0] = -1;
  return Symbol(node);
}

Symbol Layer::operator()(const Symbol& x) & { return record(*this, nullptr, {x}); }
Symbol Layer::operator()(const Symbol& x) && {
  auto owned = take();
  return record(*owned, owned, {x});
}
Symbol Layer::operator()(const std::vector<Symbol>& xs) & { return record(*this, nullptr, xs); }
Symbol Layer::operator()(const std::vector<Symbol>& xs) && {
  auto owned = take();
  return record(*owned, owned, xs);
}

std::shared_ptr<Layer> Layer::take() {
  throw Error(name() + " (" + kind() + "): this layer class cannot join a static model as a temporary; "
              "declare it as a variable, or add STRATA_LAYER_MOVABLE to the class");
}

Model::Model(const Symbol& input, const Symbol& output, std::string name)
    : Model(std::vector<Symbol>{input}, std::vector<Symbol>{output}, std::move(name)) {}

Model::Model(const std::vector<Symbol>& inputs, const std::vector<Symbol>& outputs, std::string name)
    : Layer("model", std::move(name)) {
  expect(!inputs.empty() && !outputs.empty(), "needs at least one input and one output");
  std::map<SymbolNode*, int> slot;
  for (const Symbol& in : inputs) {
    expect(in.node()->layer == nullptr, "inputs must come from nn::Input");
    expect(!slot.count(in.node().get()), "the same input is given twice");
    slot[in.node().get()] = num_slots_++;
    input_shapes_.push_back(in.shape());
    input_names_.push_back(in.node()->name);
    input_dtypes_.push_back(in.node()->probe.dtype());
  }
  // Depth-first from the outputs gives an order where every layer runs after its arguments.
  std::set<SymbolNode*> visiting;
  std::function<int(const std::shared_ptr<SymbolNode>&)> visit = [&](const std::shared_ptr<SymbolNode>& n) {
    auto it = slot.find(n.get());
    if (it != slot.end()) return it->second;
    expect(n->layer != nullptr, "an output depends on input '" + n->name + "', which is not among the model's inputs");
    Step step{n->layer, {}, 0};
    for (const auto& a : n->args) step.args.push_back(visit(a));
    step.out = num_slots_++;
    slot[n.get()] = step.out;
    steps_.push_back(step);
    if (n->owned) owned_.push_back(n->owned);
    adopt(n->layer);
    return step.out;
  };
  for (const Symbol& out : outputs) output_slots_.push_back(visit(out.node()));
}

std::vector<Tensor> Model::run(const std::vector<Tensor>& inputs) {
  expect(inputs.size() == input_shapes_.size(),
         "expects " + std::to_string(input_shapes_.size()) + " inputs, got " + std::to_string(inputs.size()));
  std::vector<Tensor> values(num_slots_);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Shape& want = input_shapes_[i];
    const Shape& got = inputs[i].shape();
    bool ok = got.size() == want.size();
    for (int d = 0; ok && d < want.size(); ++d) ok = want[d] == -1 || want[d] == got[d];
    expect(ok, "input " + std::to_string(i) + " should have shape " + want.str() + ", got " + got.str());
    values[i] = inputs[i];
  }
  for (const Step& s : steps_) {
    if (s.args.size() == 1) {
      values[s.out] = (*s.layer)(values[s.args[0]]);
    } else {
      std::vector<Tensor> args;
      for (int a : s.args) args.push_back(values[a]);
      values[s.out] = (*s.layer)(args);
    }
  }
  std::vector<Tensor> outs;
  for (int o : output_slots_) outs.push_back(values[o]);
  return outs;
}

Tensor Model::forward(const Tensor& x) { return run({x})[0]; }
Tensor Model::forward_many(const std::vector<Tensor>& xs) { return run(xs)[0]; }

}  // namespace strata::nn
