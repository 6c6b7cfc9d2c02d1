// Dropout: zeroes each element with probability p in training (survivors scaled by 1/(1-p));
// the identity in eval mode.
#pragma once
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

namespace strata::nn {

// TensorLayer's DropoutLayer takes keep; this takes the drop probability p, as Keras and PyTorch.
#define STRATA_DROPOUT_OPTIONS(X) X(double, p, 0.5, between(0, 1), "probability of zeroing an element; below 1")
STRATA_OPTIONS(DropoutOptions, STRATA_DROPOUT_OPTIONS);

class Dropout : public Layer {
 public:
  using Options = DropoutOptions;
  STRATA_LAYER_MOVABLE(Dropout)
  explicit Dropout(Options options, std::string name = "");
  explicit Dropout(double p, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn
