// More normalisation layers on channels-last inputs: TensorLayer's LocalResponseNorm (AlexNet's,
// tf.nn.local_response_normalization) and SwitchNorm (Luo et al. 2018).
#pragma once
#include "strata/nn/activation.hpp"
#include "strata/nn/layer.hpp"

namespace strata::nn {

// tf.nn.local_response_normalization over the last axis:
// y = x / (bias + alpha * sum of x² over channels [c - depth_radius, c + depth_radius]) ^ beta.
Tensor local_response_norm(const Tensor& x, int64_t depth_radius = 5, double bias = 1.0, double alpha = 1.0,
                           double beta = 0.5);

// No weights. Defaults are TensorFlow's (TensorLayer passes None for them).
class LocalResponseNorm : public Layer {
 public:
  STRATA_LAYER_MOVABLE(LocalResponseNorm)
  explicit LocalResponseNorm(int64_t depth_radius = 5, double bias = 1.0, double alpha = 1.0, double beta = 0.5,
                             std::string name = "");
  void get_config(nlohmann::json& config) const override;

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  int64_t depth_radius_;
  double bias_, alpha_, beta_;
};

// Switchable normalisation of x [N, spatial..., C]: the mean and the variance are softmax-
// weighted mixes of the batch, instance and layer statistics (biased variances), then gamma
// and beta per channel. Weights, TensorLayer's first: beta, gamma [C], mean_weight,
// var_weight [3] (batch, instance, layer; starting at ones), then the non-trainable
// moving_mean, moving_var [C] of the batch statistics. Training uses the batch's statistics
// and updates the moving ones (moving = decay * moving + (1 - decay) * batch); eval uses the
// moving ones for the batch part, as the paper's code does (TensorLayer uses the batch's in
// eval too, which makes a prediction depend on the rest of its batch).
class SwitchNorm : public Layer {
 public:
  STRATA_LAYER_MOVABLE(SwitchNorm)
  explicit SwitchNorm(Activation act = {}, double epsilon = 1e-5, double decay = 0.9, std::string name = "",
                      Initializer beta_init = zeros_init(), Initializer gamma_init = ones_init());
  void get_config(nlohmann::json& config) const override;
  Tensor beta, gamma, mean_weight, var_weight, moving_mean, moving_var;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Activation act_;
  double epsilon_, decay_;
  int rank_ = 0;
  int64_t channels_ = 0;
  Initializer beta_init_, gamma_init_;
};

}  // namespace strata::nn
