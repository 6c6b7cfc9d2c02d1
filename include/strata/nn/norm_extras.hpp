// More normalisation layers on channels-last inputs: TensorLayer's LocalResponseNorm (AlexNet's,
// tf.nn.local_response_normalization) and SwitchNorm (Luo et al. 2018).
#pragma once
#include "strata/nn/activation.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

namespace strata::nn {

// tf.nn.local_response_normalization over the last axis:
// y = x / (bias + alpha * sum of x² over channels [c - depth_radius, c + depth_radius]) ^ beta.
Tensor local_response_norm(const Tensor& x, int64_t depth_radius = 5, double bias = 1.0, double alpha = 1.0,
                           double beta = 0.5);

#define STRATA_LOCAL_RESPONSE_NORM_OPTIONS(X)                                              \
  X(int64_t, depth_radius, 5, at_least(0), "channels summed on each side of a channel") \
  X(double, bias, 1.0, any(), "added to the weighted sum")                              \
  X(double, alpha, 1.0, any(), "the sum's weight")                                      \
  X(double, beta, 0.5, any(), "the exponent")
STRATA_OPTIONS(LocalResponseNormOptions, STRATA_LOCAL_RESPONSE_NORM_OPTIONS);

// No weights. Defaults are TensorFlow's (TensorLayer passes None for them).
class LocalResponseNorm : public Layer {
 public:
  using Options = LocalResponseNormOptions;
  STRATA_LAYER_MOVABLE(LocalResponseNorm)
  explicit LocalResponseNorm(Options options, std::string name = "");
  explicit LocalResponseNorm(int64_t depth_radius = 5, double bias = 1.0, double alpha = 1.0, double beta = 0.5,
                             std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

// Switchable normalisation of x [N, spatial..., C]: the mean and the variance are softmax-
// weighted mixes of the batch, instance and layer statistics (biased variances), then gamma
// and beta per channel. Weights, TensorLayer's first: beta, gamma [C], mean_weight,
// var_weight [3] (batch, instance, layer; starting at ones), then the non-trainable
// moving_mean, moving_var [C] of the batch statistics. Training uses the batch's statistics
// and updates the moving ones (moving = decay * moving + (1 - decay) * batch); eval uses the
// moving ones for the batch part, as the paper's code does (TensorLayer uses the batch's in
// eval too, which makes a prediction depend on the rest of its batch).
#define STRATA_SWITCH_NORM_OPTIONS(X)                                                                        \
  X(Activation, act, {}, any(), "applied to the normalised output; empty: none")                              \
  X(double, epsilon, 1e-5, at_least(0), "added to the variance")                                             \
  X(double, decay, 0.9, between(0, 1), "moving = decay * moving + (1 - decay) * batch")                      \
  X(Initializer, beta_init, zeros_init(), not_saved(), "initializer of beta [C]")                             \
  X(Initializer, gamma_init, ones_init(), not_saved(), "initializer of gamma [C]")
STRATA_OPTIONS(SwitchNormOptions, STRATA_SWITCH_NORM_OPTIONS);

class SwitchNorm : public Layer {
 public:
  using Options = SwitchNormOptions;
  STRATA_LAYER_MOVABLE(SwitchNorm)
  explicit SwitchNorm(Options options, std::string name = "");
  explicit SwitchNorm(Activation act = {}, double epsilon = 1e-5, double decay = 0.9, std::string name = "",
                      Initializer beta_init = zeros_init(), Initializer gamma_init = ones_init());
  const Options& options() const { return options_; }
  Tensor beta, gamma, mean_weight, var_weight, moving_mean, moving_var;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  int rank_ = 0;
  int64_t channels_ = 0;
};

}  // namespace strata::nn
