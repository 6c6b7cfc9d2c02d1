// Internal: builds a static zoo model front to back and stops after the layer or block named
// end_with, as TensorLayer's zoo models do (everything after it is never added).
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "strata/nn/model.hpp"

namespace strata::nn::zoo {

class Chain {
 public:
  Chain(std::string model, const Shape& input, std::string end_with);
  // h = layer(h), the graph taking the temporary layer, unless the model has ended already;
  // the model ends after the layer named end_with.
  void add(Layer&& layer);
  // Several layers with branches (a residual or fire block) that end_with names as one:
  // `name` is the block's, and block(h) returns its output.
  void add_block(const std::string& name, const std::function<Symbol(const Symbol&)>& block);
  // The model from the input to end_with. Throws strata::Error naming the model when no layer
  // or block had that name.
  std::shared_ptr<Model> finish() const;

 private:
  void passed(const std::string& name);

  std::string model_, end_with_, first_, last_;
  Symbol input_, h_;
  bool ended_ = false;
};

}  // namespace strata::nn::zoo
