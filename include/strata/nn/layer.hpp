// Layer: the base of every layer and model. A layer creates its weights lazily, from the shape
// of its first input (build), so nobody types an input size; then every call runs forward.
//
// Modules (PyTorch style) need no registration: a layer's children are the layers it calls
// during its forward pass, found as it runs (a thread-local call stack), so calling a model
// once (or building it) is what makes its weights known. The same layer object called in two
// places is one set of weights, and its gradients from both uses add up.
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "strata/core/tensor.hpp"
#include "strata/nn/initializers.hpp"

namespace strata::nn {

class Symbol;  // a symbolic value in a static model (nn/model.hpp)

class Layer {
 public:
  // `kind` names the layer type ("dense"); unnamed layers get unique names "dense_1", ...
  explicit Layer(std::string kind, std::string name = "");
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;
  virtual ~Layer();

  // Builds on the first call (weights from x's shape), checks the input, runs forward.
  Tensor operator()(const Tensor& x);
  // For layers of several inputs (Concat, Elementwise, ...): build_many / forward_many.
  Tensor operator()(const std::vector<Tensor>& xs);
  // Static declaration (nn/model.hpp): records this layer in the graph and builds it from the
  // input's shape. A named layer is used by reference (call it twice: shared weights); a
  // temporary, as in nn::Dense(10)(h), is moved into the graph, which then owns it.
  Symbol operator()(const Symbol& x) &;
  Symbol operator()(const Symbol& x) &&;
  Symbol operator()(const std::vector<Symbol>& xs) &;
  Symbol operator()(const std::vector<Symbol>& xs) &&;

  const std::string& name() const { return name_; }
  const std::string& kind() const { return kind_; }
  bool built() const { return built_; }
  bool training() const { return training_; }
  // Sets train / eval mode on this layer and, when called, on the children it calls.
  Layer& train(bool on = true);
  Layer& eval() { return train(false); }
  // Moves this layer's weights (and their gradients) and its children's to `device`, in place:
  // optimizers holding them follow (their state moves at the next step). Weights built later
  // are made there too.
  Layer& to(Device device);
  Device device() const { return device_; }

  // Weights of this layer and its children, children in the order they were first called.
  std::vector<Tensor> all_weights() const;
  std::vector<Tensor> trainable_weights() const;
  std::vector<Tensor> nontrainable_weights() const;
  // "dense_1/W" -> tensor, the names TensorLayer's files use.
  std::vector<std::pair<std::string, Tensor>> named_weights() const;
  const std::vector<Layer*>& children() const { return children_; }
  // The child (at any depth) with this name; nullptr if none.
  Layer* find(const std::string& name);
  // Keras's and TensorLayer's get_layer: the layer named `name` (at any depth), or the
  // index-th child in call order (a static model's layers in the order they run). Throws an
  // Error naming this layer when there is none.
  Layer& get_layer(const std::string& name);
  Layer& get_layer(size_t index);
  int64_t count_params() const;
  // A Keras-like table of layers, output shapes (of the last call) and parameter counts.
  std::string summary() const;

 protected:
  // Create weights from the input shape with add_weight. Called once, before the first forward.
  virtual void build(const Shape& input_shape) {}
  virtual Tensor forward(const Tensor& x) = 0;
  // Several inputs. By default a layer takes exactly one (then these call build / forward).
  virtual void build_many(const std::vector<Shape>& input_shapes);
  virtual Tensor forward_many(const std::vector<Tensor>& xs);
  Tensor add_weight(const std::string& name, const Shape& shape, const Initializer& init, bool trainable = true);
  // Throws an Error naming this layer when a condition on its input fails.
  void expect(bool condition, const std::string& what) const;
  // Makes `child` one of this layer's children (static models adopt their layers up front; a
  // call adopts the callee). The link is kept both ways, so either side unlinks on destruction.
  void adopt(Layer* child);
  // Moves this layer into a heap object (used when a temporary joins a static model). Layer
  // classes provide it with STRATA_LAYER_MOVABLE(Class); others must be named variables.
  virtual std::shared_ptr<Layer> take();
  // The new object takes the moved one's place: its parents and children point to it instead.
  Layer(Layer&& other) noexcept;

 private:
  struct Weight {
    std::string name;
    Tensor tensor;
    bool trainable;
  };
  void collect(std::vector<std::pair<std::string, Tensor>>& out, int trainable) const;
  // Registers this call with the calling layer and runs `body` with this layer on the call stack.
  template <class Body>
  Tensor call(Body&& body);
  void summary_rows(std::string& out, int depth) const;

  std::string kind_, name_;
  bool built_ = false, training_ = true;
  Device device_ = kCPU;
  std::vector<Weight> weights_;
  // Links, not ownership: a layer destroyed (a temporary called inside forward) or moved
  // removes or re-points itself in its parents' children_ and its children's parents_.
  std::vector<Layer*> children_;
  std::vector<Layer*> parents_;
  Shape last_output_shape_;
  // Held by every call of this layer through its lazy build, bookkeeping and forward, so a layer
  // shared by models that threads run at once builds once and runs one call at a time (recursive:
  // a call may reach its own layer again through a Lambda's function). Not moved with the layer.
  mutable std::recursive_mutex call_mutex_;
  friend std::recursive_mutex& call_mutex(const Layer& layer);
};

// Restarts the default names' counters (the next unnamed Dense is "dense_1" again), as a fresh
// Keras session or TensorLayer process would; for matching their names (interop/weight_files.hpp). Names
// of layers that exist are unchanged, so a new layer may then share a name with an old one.
void reset_default_names();

// Inside a layer class: lets temporaries of it join static models (see Layer::take).
#define STRATA_LAYER_MOVABLE(Class) \
  std::shared_ptr<Layer> take() override { return std::make_shared<Class>(std::move(*this)); }

// The base for user models written PyTorch-style: members are layers, forward calls them.
class Module : public Layer {
 public:
  explicit Module(std::string name = "") : Layer("module", std::move(name)) {}
};

}  // namespace strata::nn
