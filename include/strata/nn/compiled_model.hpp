// A static model compiled for inference (issue 40, item 3): nn::compile(model) turns the model's
// graph into a plan per input shape. Convolutions and Dense layers run as prepared kernels
// (ops/prepared.hpp) with their bias and activation in the same pass, a BatchNorm that follows a
// convolution or Dense without activation is folded into its weights, Dropout (an identity in
// eval mode) is dropped, Flatten and Reshape of planned buffers are views; every other layer
// runs eagerly, as Model::run would run it (docs/compiled_models.md lists what fuses).
// The planned buffers live in one arena per input shape, reused by liveness, so after the first
// run of a shape, running the planned steps allocates nothing. A new batch shape gets its own plan.
//
//   nn::CompiledModel fast = nn::compile(net);
//   Tensor y = fast.run(x);      // == net.run({x})[0] in eval mode, without autograd
//
// A free function, not Model::compile(): model.hpp is reached from the umbrella header, so a new
// member would rebuild the whole library; compile() needs nothing private (it reads the graph
// from Model::graph_config and the layers from children()), and can become a member later.
//
// Contract: the model outlives the compiled one and keeps its architecture; the fused steps use
// the weights as they were when their plan was made (after training or loading weights, compile
// again); the layers that run eagerly use their weights as they are. A model whose graph cannot
// be described (an unregistered layer class, an unnamed Lambda) cannot be compiled: compile
// throws strata::Error saying which layer. Runs are serialised (one at a time per compiled model).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "strata/nn/model.hpp"

namespace strata::nn {

struct CompileOptions {
  bool fuse = true;              // false: every layer runs eagerly through the plan (for comparisons)
  bool fold_batch_norm = true;   // BatchNorm into the preceding convolution or Dense
  size_t max_cached_shapes = 8;  // plans kept (each holds an arena); the oldest goes first
};

class CompiledModel {
 public:
  CompiledModel(CompiledModel&&) noexcept;
  CompiledModel& operator=(CompiledModel&&) noexcept;
  ~CompiledModel();

  // Every output for these inputs, as Model::run in eval mode without autograd. Inputs are
  // checked against the model's input shapes (-1: any batch). Outputs that a planned step made
  // are the plan's own buffers: valid until the next run with the same input shapes (clone()
  // to keep one).
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);
  Tensor run(const Tensor& x);  // one input, the first output
  // The plan for these input shapes (made if need be), one line per step: "fused conv2d_1 +
  // batchnorm_1 (relu)", "view flatten_1", "eager maxpool2d_1", "dropped dropout_1".
  std::string describe(const std::vector<Shape>& input_shapes);
  // The bytes of that plan's arena.
  size_t arena_bytes(const std::vector<Shape>& input_shapes);
  size_t cached_plans() const;

 private:
  struct Impl;
  explicit CompiledModel(std::unique_ptr<Impl> impl);
  friend CompiledModel compile(const Model& model, CompileOptions options);
  std::unique_ptr<Impl> impl_;
};

// Reads the model's graph and checks it; plans are made at the first run of each input shape.
CompiledModel compile(const Model& model, CompileOptions options = {});

}  // namespace strata::nn
