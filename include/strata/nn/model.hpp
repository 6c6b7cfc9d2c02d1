// Static models (Keras functional / Lasagne style): nn::Input gives a symbolic value; calling
// layers on symbolic values records a graph (branches, merges, several inputs and outputs);
// nn::Model(inputs, outputs) turns the graph into a layer.
//
//   auto x = nn::Input({-1, 28, 28, 1});
//   auto h = nn::Conv2d(32, {5, 5}, nn::relu)(x);   // in_channels inferred
//   h = nn::Flatten()(nn::MaxPool2d()(h));
//   nn::Model net(x, nn::Dense(10)(h), "cnn");
//
// Each layer is built the moment it is called on a symbol: the graph runs it once on a
// shape-only batch-1 probe (a meta tensor: no data, no arithmetic), in eval mode and without
// autograd, which gives every symbol its shape (-1 stands for the batch). Declaring a model
// allocates its weights and no activations.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "strata/nn/layer.hpp"

namespace strata::nn {

struct SymbolNode;

class Symbol {
 public:
  explicit Symbol(std::shared_ptr<SymbolNode> node) : node_(std::move(node)) {}
  const Shape& shape() const;
  const std::shared_ptr<SymbolNode>& node() const { return node_; }

 private:
  std::shared_ptr<SymbolNode> node_;
};

// A model input of this shape; -1 in the first axis is a batch of any size.
Symbol Input(const Shape& shape, std::string name = "");

class Model : public Layer {
 public:
  Model(const std::vector<Symbol>& inputs, const std::vector<Symbol>& outputs, std::string name = "");
  Model(const Symbol& input, const Symbol& output, std::string name = "");

  // Every output for these inputs (in the order given to the constructor).
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);
  size_t num_inputs() const { return input_shapes_.size(); }
  size_t num_outputs() const { return output_slots_.size(); }

 protected:
  Tensor forward(const Tensor& x) override;  // one input, the first output
  Tensor forward_many(const std::vector<Tensor>& xs) override;
  void build_many(const std::vector<Shape>&) override {}

 private:
  struct Step {
    Layer* layer;
    std::vector<int> args;  // value slots
    int out;
  };
  std::vector<Shape> input_shapes_;
  std::vector<Step> steps_;
  std::vector<int> output_slots_;
  int num_slots_ = 0;
  std::vector<std::shared_ptr<Layer>> owned_;  // layers that joined the graph as temporaries
};

}  // namespace strata::nn
