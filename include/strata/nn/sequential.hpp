// Sequential: layers applied in order (Keras's Sequential, TensorLayer's LayerList). Layers
// are held by shared_ptr so the same layer can also appear elsewhere (shared weights).
#pragma once
#include <memory>
#include <vector>

#include "strata/nn/layer.hpp"

namespace strata::nn {

class Sequential : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Sequential)
  void get_config(nlohmann::json& config) const override;
  explicit Sequential(std::vector<std::shared_ptr<Layer>> layers = {}, std::string name = "");
  // seq.add<Dense>(10, "relu") constructs and appends a layer, returning it.
  template <class L, class... Args>
  L& add(Args&&... args) {
    auto layer = std::make_shared<L>(std::forward<Args>(args)...);
    L& ref = *layer;
    layers_.push_back(std::move(layer));
    return ref;
  }
  Sequential& add(std::shared_ptr<Layer> layer);
  size_t size() const { return layers_.size(); }
  Layer& operator[](size_t i) const { return *layers_.at(i); }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  std::vector<std::shared_ptr<Layer>> layers_;
};

}  // namespace strata::nn
