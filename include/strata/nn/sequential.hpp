// Sequential: layers applied in order (Keras's Sequential, TensorLayer's LayerList). Layers
// are held by shared_ptr so the same layer can also appear elsewhere (shared weights).
#pragma once
#include <memory>
#include <vector>

#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

namespace strata::nn {

#define STRATA_SEQUENTIAL_OPTIONS(X) \
  X(std::vector<std::shared_ptr<Layer>>, layers, {}, any(), "the layers, applied in order")
STRATA_OPTIONS(SequentialOptions, STRATA_SEQUENTIAL_OPTIONS);

class Sequential : public Layer {
 public:
  using Options = SequentialOptions;
  STRATA_LAYER_MOVABLE(Sequential)
  explicit Sequential(Options options, std::string name = "");
  explicit Sequential(std::vector<std::shared_ptr<Layer>> layers = {}, std::string name = "")
      : Sequential(Options{.layers = std::move(layers)}, std::move(name)) {}
  // seq.add<Dense>(10, "relu") constructs and appends a layer, returning it.
  template <class L, class... Args>
  L& add(Args&&... args) {
    auto layer = std::make_shared<L>(std::forward<Args>(args)...);
    L& ref = *layer;
    options_.layers.push_back(std::move(layer));
    return ref;
  }
  Sequential& add(std::shared_ptr<Layer> layer);
  size_t size() const { return options_.layers.size(); }
  Layer& operator[](size_t i) const { return *options_.layers.at(i); }
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn
