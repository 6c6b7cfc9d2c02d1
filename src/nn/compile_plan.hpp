// The pieces of nn::compile (strata/nn/compiled_model.hpp): the model's graph as compile reads
// it, and a plan for one set of input shapes with its arena.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "strata/nn/compiled_model.hpp"
#include "strata/nn/layers/activation.hpp"
#include "strata/ops/prepared.hpp"

namespace strata::nn::detail {

// Slots 0 .. inputs-1 hold the model's inputs; step k writes slot inputs + k (Model's order).
struct GraphStep {
  Layer* layer;
  std::vector<int> args;
};
struct ModelGraph {
  std::string name;
  std::vector<Shape> input_shapes;  // -1 in the first axis: any batch
  std::vector<GraphStep> steps;
  std::vector<int> outputs;
  int out_slot(size_t step) const { return static_cast<int>(input_shapes.size() + step); }
  int num_slots() const { return static_cast<int>(input_shapes.size() + steps.size()); }
};

// From Model::graph_config and the model's children (its layers in the order they first run).
ModelGraph read_graph(const Model& model);
// Throws strata::Error unless `inputs` are defined tensors of the graph's input shapes (-1: any).
void check_inputs(const ModelGraph& graph, const std::vector<Tensor>& inputs, const char* who);
// Every slot's value for `inputs`, the layers run eagerly in eval mode without autograd: the
// shapes and dtypes a plan is made for.
std::vector<Tensor> trace_values(const ModelGraph& graph, const std::vector<Tensor>& inputs);

// The weights, bias and activation of a layer that can run as one prepared kernel, as a Conv2d or
// a Dense (exactly those classes: subclasses compute otherwise) declares them.
struct Fusable {
  Tensor w, b;
  Activation act;
  const ConvOptions* conv = nullptr;  // null: dense
};
std::optional<Fusable> fusable(Layer& l);

// Offsets in an arena of floats: a freed buffer is reused by the next value that fits in it
// (best fit); buffers are 64-byte aligned.
class ArenaPlanner {
 public:
  int64_t take(int64_t floats);
  void give_back(int64_t offset, int64_t floats);
  int64_t size() const { return size_; }

 private:
  static constexpr int64_t kAlign = 16;
  std::vector<std::pair<int64_t, int64_t>> free_;
  int64_t size_ = 0;
};

struct PlanStep {
  enum class Kind { fused, view, eager } kind;
  std::optional<ops::PreparedOp> op;  // fused
  Layer* layer = nullptr;             // eager
  std::vector<int> args;
  int out = 0;
};

struct Plan {
  std::vector<Shape> input_shapes;
  Tensor arena;                // float32, holds every planned slot
  std::vector<Tensor> values;  // per slot: views of the arena where planned, else set by a run
  std::vector<bool> planned;
  std::vector<int> source;  // the slot whose value a slot has (a dropped Dropout's is its input's)
  std::vector<PlanStep> steps;
  std::vector<std::string> lines;  // CompiledModel::describe
};

// Runs the model eagerly once on `inputs` (for every slot's shape), then fuses and plans memory.
Plan make_plan(const ModelGraph& graph, const std::vector<Tensor>& inputs, const CompileOptions& options);
// The model's outputs for `inputs`, of the shapes the plan was made for.
std::vector<Tensor> run_plan(Plan& plan, const ModelGraph& graph, const std::vector<Tensor>& inputs);

}  // namespace strata::nn::detail
