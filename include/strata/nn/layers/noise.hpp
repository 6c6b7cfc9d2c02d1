// Noise layers: dropout and Gaussian noise, active in training only (unless asked otherwise).
// One header per layer family (docs/architecture.md, "nn"); each section below keeps its own notes.
#pragma once
#include <memory>

#include "strata/core/factory.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

// Dropout: zeroes each element with probability p in training (survivors scaled by 1/(1-p));
// the identity in eval mode.
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

// Gaussian noise as a layer (TensorLayer's GaussianNoise).
namespace strata::nn {

#define STRATA_GAUSSIAN_NOISE_OPTIONS(X)                                           \
  X(double, mean, 0.0, any(), "mean of the noise")                                 \
  X(double, stddev, 1.0, at_least(0), "standard deviation of the noise")           \
  X(bool, is_always, false, any(), "adds noise in eval too, not only in training") \
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
