// Dense (fully connected): y = act(x · W + b) over the last axis; W is [in, out] as in
// TensorLayer, `in` inferred from the first input.
#pragma once
#include "strata/nn/activation.hpp"
#include "strata/nn/layer.hpp"

namespace strata::nn {

class Dense : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Dense)
  void get_config(nlohmann::json& config) const override;
  // in_units = -1: inferred at the first call; given, it is checked.
  Dense(int64_t units, Activation act = {}, std::string name = "", int64_t in_units = -1, bool use_bias = true,
        Initializer w_init = glorot_uniform(), Initializer b_init = zeros_init());
  Tensor W, b;

 protected:
  // For layers that are a Dense computing with a transformed W or input (DropconnectDense, the
  // quantised ones): their own kind, Dense's weights, shapes and checks.
  Dense(std::string kind, int64_t units, Activation act, std::string name, int64_t in_units, bool use_bias,
        Initializer w_init, Initializer b_init);
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;  // apply(x, W)
  // act(x · weight + b), once x's last axis is checked against the built in_units.
  Tensor apply(const Tensor& x, const Tensor& weight);

 private:
  int64_t units_, in_units_;
  Activation act_;
  bool use_bias_;
  Initializer w_init_, b_init_;
};

}  // namespace strata::nn
