// Small layers with one trainable factor or random noise (TensorLayer's PRelu, Scale,
// GaussianNoise).
#pragma once
#include <memory>

#include "strata/core/factory.hpp"
#include "strata/nn/layer.hpp"

namespace strata::nn {

// Parametric ReLU: max(x, 0) + alpha * min(x, 0), alpha learned per channel (the last axis;
// "alpha" [C]) or shared ([1]).
class PRelu : public Layer {
 public:
  STRATA_LAYER_MOVABLE(PRelu)
  void get_config(nlohmann::json& config) const override;
  explicit PRelu(bool channel_shared = false, int64_t in_channels = -1,
                 Initializer a_init = truncated_normal(0.0, 0.05), std::string name = "");
  Tensor alpha;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  bool channel_shared_;
  int64_t in_channels_;
  Initializer a_init_;
};

// The functional form; alpha broadcasts against x.
Tensor prelu(const Tensor& x, const Tensor& alpha);

// x times one learned scalar ("scale" [1], starting at init_scale).
class Scale : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Scale)
  void get_config(nlohmann::json& config) const override;
  explicit Scale(double init_scale = 0.05, std::string name = "");
  Tensor scale;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  double init_scale_;
};

// Adds N(mean, stddev) noise in training; the identity in eval unless is_always (TensorLayer's
// default is_always = true adds it in eval too; Keras's and this default do not). A seed >= 0
// gives the layer its own generator; otherwise the default generator draws.
class GaussianNoise : public Layer {
 public:
  STRATA_LAYER_MOVABLE(GaussianNoise)
  void get_config(nlohmann::json& config) const override;
  explicit GaussianNoise(double mean = 0.0, double stddev = 1.0, bool is_always = false, int64_t seed = -1,
                         std::string name = "");

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  double mean_, stddev_;
  bool is_always_;
  int64_t seed_;
  std::unique_ptr<Generator> gen_;
};

}  // namespace strata::nn
