#include "chain.hpp"

namespace strata::nn::zoo {

Chain::Chain(std::string model, const Shape& input, std::string end_with)
    : model_(std::move(model)), end_with_(std::move(end_with)), input_(Input(input, "input")), h_(input_) {}

void Chain::add(Layer&& layer) {
  if (ended_) return;
  const std::string name = layer.name();  // before the graph takes the layer
  h_ = std::move(layer)(h_);
  passed(name);
}

void Chain::add_block(const std::string& name, const std::function<Symbol(const Symbol&)>& block) {
  if (ended_) return;
  h_ = block(h_);
  passed(name);
}

void Chain::passed(const std::string& name) {
  if (first_.empty()) first_ = name;
  last_ = name;
  ended_ = name == end_with_;
}

std::shared_ptr<Model> Chain::finish() const {
  STRATA_CHECK(ended_, model_, ": end_with '", end_with_, "' is not one of its layers or blocks (", first_, " ... ",
               last_, ")");
  return std::make_shared<Model>(input_, h_, model_);
}

}  // namespace strata::nn::zoo
