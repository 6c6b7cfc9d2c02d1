// The training step of a static model, compiled (issue 40, item 3, the training half):
// nn::compile_training(model) turns the model's graph into a plan per input shape, whose
// forward runs Conv2d and Dense layers (float32; activation none, relu, tanh or sigmoid) as
// oneDNN primitives made for training with their bias and activation in the same pass, and the
// 2x2 max pools as loops that keep their winners; Flatten and Reshape are views. Its backward
// runs the same steps in reverse as prepared backward primitives (the activation's backward in
// one pass over the gradient, the convolution's backward-data and backward-weights made with
// the forward as hint, matmuls for Dense) and adds each weight's gradient into the layer's
// .grad, so any optimizer steps them as after an eager backward(). Every other layer (Dropout,
// BatchNorm, other activations, merges, ...) runs eagerly on its own with autograd, as in an
// eager step: its inputs as leaves, its output's gradient given to backward. Forward values
// and gradients live in two arenas per plan (gradients reused by liveness), so after the first
// step of a shape the planned steps allocate nothing.
//
//   nn::CompiledTrainStep step = nn::compile_training(net);
//   optim.zero_grad();
//   Tensor logits = step.forward(x);                 // == net.run({x})[0], in the model's mode
//   Tensor leaf = logits.detach().requires_grad_();
//   Tensor loss = cross_entropy(leaf, y);
//   loss.backward();
//   step.backward(leaf.grad());                      // the weights' .grad, as loss.backward() eagerly
//   optim.step();
//
// train::fit(..., {.compiled = true}) does this for an nn::Model (docs/compiled_models.md).
// Contract: the model outlives the step and keeps its architecture; the weights are read where
// they are at each step (an optimizer's in-place updates are seen, no snapshot); forward's
// outputs are the plan's buffers, valid until the next forward of that shape; backward goes
// with the last forward (once). A weight whose .grad is undefined gets a buffer of the plan as
// its gradient (overwritten by the next backward of that shape after zero_grad drops it).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "strata/nn/compiled_model.hpp"

namespace strata::nn {

class CompiledTrainStep {
 public:
  CompiledTrainStep(CompiledTrainStep&&) noexcept;
  CompiledTrainStep& operator=(CompiledTrainStep&&) noexcept;
  ~CompiledTrainStep();

  // The model's outputs for these inputs, the layers in their current mode (train() for
  // training), without autograd history on the outputs. Inputs are checked against the model's
  // input shapes (-1: any batch): strata::Error names the input, the expected and given shapes.
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs);
  Tensor forward(const Tensor& x);  // one input, the first output
  // The gradients of the loss with respect to the last forward's outputs (one per output, of
  // its shape; undefined: zero) backpropagated: every trainable weight's .grad gets its share
  // added (set where undefined).
  void backward(const std::vector<Tensor>& output_grads);
  void backward(const Tensor& output_grad);
  // The plan for these input shapes (made if need be), one line per step: "fused conv2d_1
  // (relu)", "view flatten_1", "eager dropout_1".
  std::string describe(const std::vector<Shape>& input_shapes);
  // The bytes of that plan's two arenas (forward values, gradients).
  size_t arena_bytes(const std::vector<Shape>& input_shapes);
  size_t cached_plans() const;

  struct Impl;

 private:
  explicit CompiledTrainStep(std::unique_ptr<Impl> impl);
  friend CompiledTrainStep compile_training(const Model& model, CompileOptions options);
  std::unique_ptr<Impl> impl_;
};

// Reads the model's graph and checks it (as compile); plans are made at the first forward of
// each input shape. options.fold_batch_norm is ignored (batch statistics in training).
CompiledTrainStep compile_training(const Model& model, CompileOptions options = {});

}  // namespace strata::nn
