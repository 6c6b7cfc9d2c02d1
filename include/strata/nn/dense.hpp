// Dense (fully connected): y = act(x · W + b) over the last axis; W is [in, out] as in
// TensorLayer, `in` inferred from the first input.
#pragma once
#include "strata/nn/activation.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

namespace strata::nn {

#define STRATA_DENSE_OPTIONS(X)                                                                  \
  X(int64_t, units, 0, at_least(1), "output features")                                            \
  X(Activation, act, {}, any(), "applied to x·W + b: a name (\"relu\") or a function; empty: none") \
  X(int64_t, in_units, -1, at_least(-1), "input features; -1: inferred from the first input")     \
  X(bool, use_bias, true, any(), "adds the bias b")                                               \
  X(Initializer, w_init, glorot_uniform(), not_saved(), "initializer of W [in_units, units]")      \
  X(Initializer, b_init, zeros_init(), not_saved(), "initializer of b [units]")
STRATA_OPTIONS(DenseOptions, STRATA_DENSE_OPTIONS);

class Dense : public Layer {
 public:
  using Options = DenseOptions;
  STRATA_LAYER_MOVABLE(Dense)
  explicit Dense(Options options, std::string name = "");
  // in_units = -1: inferred at the first call; given, it is checked.
  Dense(int64_t units, Activation act = {}, std::string name = "", int64_t in_units = -1, bool use_bias = true,
        Initializer w_init = glorot_uniform(), Initializer b_init = zeros_init());
  const Options& options() const { return options_; }
  Tensor W, b;

 protected:
  // For layers that are a Dense computing with a transformed W or input (DropconnectDense, the
  // quantised ones): their own kind, Dense's weights, shapes and checks.
  Dense(std::string kind, Options options, std::string name);
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;  // apply(x, W)
  // act(x · weight + b), once x's last axis is checked against the built in_units.
  Tensor apply(const Tensor& x, const Tensor& weight);

 private:
  Options options_;
};

}  // namespace strata::nn
