// An ONNX model whose inputs have symbolic sizes past the batch (an image model of symbolic height
// and width, a sequence model of symbolic length) run at whatever sizes its inputs come with
// (docs/interop.md, "Symbolic sizes past the batch").
//
//   auto net = onnx::load_onnx_any_size("model.onnx");
//   Tensor a = (*net)(randn({2, 3, 224, 224}));     // imported at height 224, width 224
//   Tensor b = (*net)(randn({2, 3, 160, 96}));      // imported again at 160 x 96, same weights
//
// A static model (nn::Model) fixes every size but the batch's, and the import folds shape
// arithmetic (Shape, Gather, Concat into a Reshape's target...) into constants at the sizes it
// imports at, so a model imported at one size computes wrongly at another. This layer keeps the
// parsed file and imports a static model (onnx::load_onnx with ImportOptions::sizes) for each set
// of sizes its inputs come with, the symbolic sizes read off the inputs, the batch left symbolic
// as in load_onnx's models; it keeps the last few of them (max_cached_shapes). Every instance
// uses the first one's weights (nn::alias_weight: the same storage, gradients into the first's
// .grad()), which are this layer's weights: an optimizer over trainable_weights() trains all
// sizes at once, and save_weights / load_weights name them as load_onnx's model does. It starts in
// eval mode, as load_onnx's models (an ONNX graph is an inference); train() for training. Like
// other lazy layers, it has its weights once called (on the first input's sizes).
#pragma once
#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "strata/nn/model.hpp"

namespace strata::onnx {

namespace detail {
struct ParsedOnnx;
}

struct AnySizeOptions {
  // Static models kept, the first (whose weights every other uses, never dropped) included; the
  // least recently used other one goes first. At least 2.
  size_t max_cached_shapes = 8;
};

class ShapePolymorphicModel : public nn::Layer {
 public:
  // `bytes`: an ONNX ModelProto, parsed and checked here (nothing is imported until the first
  // call); `what` names it in errors.
  ShapePolymorphicModel(const std::string& bytes, const std::string& what, AnySizeOptions options = {});
  ~ShapePolymorphicModel() override;

  // Every output for these inputs (in the graph's order); calling the layer gives the first.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);
  size_t num_inputs() const { return inputs_.size(); }
  size_t num_outputs() const;

  // The sizes of the symbolic axes past the batch at which these inputs run, by name (an unnamed
  // one as "<input>:<axis>"): {"height": 224, "width": 160}. Throws an Error naming the input
  // and the axis for a wrong count of inputs, a wrong rank, a size that contradicts a fixed axis
  // of the file, or two axes of one name given different sizes.
  std::map<std::string, int64_t> sizes_of(const std::vector<Shape>& shapes) const;
  // The static models kept now, and the one for these sizes if it is kept (nullptr otherwise).
  size_t cached_shapes() const { return instances_.size(); }
  std::shared_ptr<nn::Model> instance(const std::map<std::string, int64_t>& sizes) const;

 protected:
  void build(const Shape& input_shape) override { build_many({input_shape}); }
  void build_many(const std::vector<Shape>& input_shapes) override;
  Tensor forward(const Tensor& x) override { return forward_many({x}); }
  Tensor forward_many(const std::vector<Tensor>& xs) override;

 private:
  struct Instance {
    std::map<std::string, int64_t> sizes;
    std::shared_ptr<nn::Model> model;
    std::vector<std::pair<Tensor, Tensor>> shared;  // (this instance's weight, the first's)
    std::vector<std::shared_ptr<void>> links;       // what keeps the gradient links alive
  };
  struct AxisInfo {
    int64_t size = 0;  // a fixed size, or 0
    std::string name;  // a symbolic axis's name (dim_param, or "<input>:<axis>")
  };
  struct InputInfo {
    std::string name;
    std::vector<AxisInfo> axes;
    bool has_shape = false;  // the file gives its shape (else the import refuses it)
  };
  Instance& instance_for(const std::map<std::string, int64_t>& sizes);
  std::shared_ptr<nn::Model> import_at(const std::map<std::string, int64_t>& sizes) const;
  std::vector<Tensor> run_instance(const std::vector<Tensor>& xs);

  std::string what_;
  AnySizeOptions options_;
  std::unique_ptr<detail::ParsedOnnx> parsed_;
  std::vector<InputInfo> inputs_;
  std::list<Instance> instances_;  // the first (the weights' owner) first, then the most recent first
};

// The file at `path` (or the bytes of one) as a layer that runs at any sizes of its symbolic axes.
std::shared_ptr<ShapePolymorphicModel> load_onnx_any_size(const std::string& path, AnySizeOptions options = {});
std::shared_ptr<ShapePolymorphicModel> from_onnx_any_size(const std::string& bytes,
                                                          const std::string& what = "ONNX model",
                                                          AnySizeOptions options = {});

}  // namespace strata::onnx
