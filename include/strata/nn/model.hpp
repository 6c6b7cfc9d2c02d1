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
//
// Whole-model files: net.save("net.safetensors") writes the architecture (every layer's class
// and arguments, and the graph) as JSON in the safetensors __metadata__ beside the weights;
// nn::Model::load("net.safetensors") rebuilds it with no user code (docs/models.md).
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

// A model input of this shape; -1 in the first axis is a batch of any size. The dtype is what
// the layers see while the model is declared (int64 for ids going into an Embedding).
Symbol Input(const Shape& shape, std::string name = "", DType dtype = kFloat32);

class Model : public Layer {
 public:
  Model(const std::vector<Symbol>& inputs, const std::vector<Symbol>& outputs, std::string name = "");
  Model(const Symbol& input, const Symbol& output, std::string name = "");

  // Every output for these inputs (in the order given to the constructor).
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);
  size_t num_inputs() const { return input_shapes_.size(); }
  size_t num_outputs() const { return output_slots_.size(); }

  // The architecture as JSON: {"format": "strata.model", "version": 1, "model": layer config}.
  // Throws strata::Error naming the layer that cannot be described (an unregistered class, an
  // unnamed activation or Lambda function).
  std::string to_json() const;
  // A new model of that architecture with freshly initialised weights. Throws strata::Error
  // for JSON that is not such an architecture, naming what is wrong.
  static std::shared_ptr<Model> from_json(const std::string& architecture);
  // One safetensors file: the weights by name and the architecture under the metadata key
  // "strata.model". load checks that every weight of the rebuilt model is in the file.
  void save(const std::string& path) const;
  static std::shared_ptr<Model> load(const std::string& path);
  // The model as an ONNX file (strata/onnx/onnx.hpp, implemented by the onnx module). Throws
  // strata::Error naming a layer that has no ONNX form, before writing anything.
  void export_onnx(const std::string& path) const;
  // The graph as a layer config (inputs, layers, nodes, outputs) and back (used by the above
  // and for models nested in models). The one registered class whose config is not declared
  // options (nn/options.hpp): a graph is the model file's format itself.
  void graph_config(nlohmann::json& config) const;
  static std::shared_ptr<Model> from_config(const nlohmann::json& config, const std::string& name);

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
  std::vector<std::string> input_names_;
  std::vector<DType> input_dtypes_;
  std::vector<Step> steps_;
  std::vector<int> output_slots_;
  int num_slots_ = 0;
  std::vector<std::shared_ptr<Layer>> owned_;  // layers that joined the graph as temporaries
};

}  // namespace strata::nn
