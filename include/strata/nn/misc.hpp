// Small layers with one trainable factor or random noise (TensorLayer's PRelu, Scale,
// GaussianNoise).
#pragma once
#include <memory>

#include "strata/core/factory.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

namespace strata::nn {

#define STRATA_PRELU_OPTIONS(X)                                                                          \
  X(bool, channel_shared, false, any(), "one slope for every channel ([1]) instead of one per channel ([C])") \
  X(int64_t, in_channels, -1, at_least(-1), "channels C (the last axis); -1: inferred from the first input")  \
  X(Initializer, a_init, (truncated_normal(0.0, 0.05)), not_saved(), "initializer of alpha")
STRATA_OPTIONS(PReluOptions, STRATA_PRELU_OPTIONS);

// Parametric ReLU: max(x, 0) + alpha * min(x, 0), alpha learned per channel (the last axis;
// "alpha" [C]) or shared ([1]).
class PRelu : public Layer {
 public:
  using Options = PReluOptions;
  STRATA_LAYER_MOVABLE(PRelu)
  explicit PRelu(Options options, std::string name = "");
  explicit PRelu(bool channel_shared = false, int64_t in_channels = -1,
                 Initializer a_init = truncated_normal(0.0, 0.05), std::string name = "");
  const Options& options() const { return options_; }
  Tensor alpha;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

// The functional form; alpha broadcasts against x.
Tensor prelu(const Tensor& x, const Tensor& alpha);

#define STRATA_SCALE_OPTIONS(X) X(double, init_scale, 0.05, any(), "the factor's initial value")
STRATA_OPTIONS(ScaleOptions, STRATA_SCALE_OPTIONS);

// x times one learned scalar ("scale" [1], starting at init_scale).
class Scale : public Layer {
 public:
  using Options = ScaleOptions;
  STRATA_LAYER_MOVABLE(Scale)
  explicit Scale(Options options, std::string name = "");
  explicit Scale(double init_scale = 0.05, std::string name = "")
      : Scale(Options{.init_scale = init_scale}, std::move(name)) {}
  const Options& options() const { return options_; }
  Tensor scale;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

#define STRATA_GAUSSIAN_NOISE_OPTIONS(X)                                                  \
  X(double, mean, 0.0, any(), "mean of the noise")                                        \
  X(double, stddev, 1.0, at_least(0), "standard deviation of the noise")                  \
  X(bool, is_always, false, any(), "adds noise in eval too, not only in training")        \
  X(int64_t, seed, -1, any(), ">= 0: the layer's own generator, seeded; else the default generator")
STRATA_OPTIONS(GaussianNoiseOptions, STRATA_GAUSSIAN_NOISE_OPTIONS);

// Adds N(mean, stddev) noise in training; the identity in eval unless is_always (TensorLayer's
// default is_always = true adds it in eval too; Keras's and this default do not). A seed >= 0
// gives the layer its own generator; otherwise the default generator draws.
class GaussianNoise : public Layer {
 public:
  using Options = GaussianNoiseOptions;
  STRATA_LAYER_MOVABLE(GaussianNoise)
  explicit GaussianNoise(Options options, std::string name = "");
  explicit GaussianNoise(double mean = 0.0, double stddev = 1.0, bool is_always = false, int64_t seed = -1,
                         std::string name = "")
      : GaussianNoise(Options{.mean = mean, .stddev = stddev, .is_always = is_always, .seed = seed}, std::move(name)) {}
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  std::unique_ptr<Generator> gen_;
};

}  // namespace strata::nn
