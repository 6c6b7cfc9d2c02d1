// Wrappers that reparametrise one weight of another layer for each call: spectral
// normalisation (Miyato et al. 2018; PyTorch's spectral_norm) and weight normalisation
// (Salimans & Kingma 2016; PyTorch's weight_norm). The wrapped layer keeps its weight, which
// trains; during the wrapper's call the layer computes with the reparametrised one.
//
//   nn::Dense dense(64);
//   nn::SpectralNorm sn(dense, dense.W);   // sn(x) is dense(x) with W / sigma_max(W)
//
// A wrapper saves the wrapped layer's config inside its own and the weight by name, so a
// model holding one saves whole when the weight is the "W" of a Dense (or a subclass), Conv2d,
// ConvLayer (Conv1d/3d, DeConv*, GroupConv2d, ...), DepthwiseConv2d or QuantizedConv2d: C++
// cannot find a member by name, so these are the members loading knows.
#pragma once
#include <memory>
#include <string>

#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

namespace strata::nn {

// The options the wrappers share: the layer (owned, or held without ownership when given as a
// Layer&) and its weight's name, "W", or "" for a member a saved model cannot name.
#define STRATA_SPECTRAL_NORM_OPTIONS(X)                                                          \
  X(std::shared_ptr<Layer>, layer, nullptr, any(), "the wrapped layer (saved as its config)")     \
  X(std::string, weight, "W", any(), "its weight wrapped: \"W\", the one member a saved model names") \
  X(int, n_power_iterations, 1, between(0, 10000), "power-iteration steps per training call")      \
  X(double, eps, 1e-12, any(), "added to the norms it divides by")
STRATA_OPTIONS(SpectralNormOptions, STRATA_SPECTRAL_NORM_OPTIONS);

#define STRATA_WEIGHT_NORM_OPTIONS(X)                                                            \
  X(std::shared_ptr<Layer>, layer, nullptr, any(), "the wrapped layer (saved as its config)")     \
  X(std::string, weight, "W", any(), "its weight wrapped: \"W\", the one member a saved model names")
STRATA_OPTIONS(WeightNormOptions, STRATA_WEIGHT_NORM_OPTIONS);

// The shared part: `layer` (which must outlive the wrapper) and its weight member `weight`
// (e.g. dense.W, conv.W). The layer is built at the wrapper's first call; the weight's last
// axis is its output axis (TensorLayer's layouts), the others its input.
class WeightWrapper : public Layer {
 protected:
  WeightWrapper(std::string kind, Layer& layer, Tensor& weight, std::string name);
  // Owns `layer` and wraps its weight member named `weight` (one of those listed above).
  WeightWrapper(std::string kind, std::shared_ptr<Layer> layer, const std::string& weight, std::string name);
  Tensor forward(const Tensor& x) override;
  // Called once, after the layer is built (weight() defined): create the wrapper's weights.
  virtual void prepare() = 0;
  // The weight the layer computes with in this call.
  virtual Tensor reparametrise(const Tensor& w) = 0;
  const Tensor& weight() const { return *weight_; }
  // The wrapped layer as the options hold it (owning nothing when given as a Layer&).
  const std::shared_ptr<Layer>& wrapped_layer() const { return layer_; }
  // "W" when the wrapped weight is a member a saved model can name, else "".
  std::string weight_name() const;
  // Throws naming both layers when the weight is one a saved model cannot name.
  void expect_nameable() const;

 private:
  std::shared_ptr<Layer> layer_;
  Tensor* weight_;
  bool prepared_ = false;
};

// W / sigma, sigma W's largest singular value (of W as a [inputs, outputs] matrix) estimated by
// power iteration: each training call runs n_power_iterations steps on the stored vector
// "u" [outputs] (non-trainable), eval reuses it. The gradient treats u as a constant, as
// PyTorch's does.
class SpectralNorm : public WeightWrapper {
 public:
  using Options = SpectralNormOptions;
  STRATA_LAYER_MOVABLE(SpectralNorm)
  // Owning options.layer, its weight named (as Model::load builds it).
  explicit SpectralNorm(Options options, std::string name = "");
  SpectralNorm(Layer& layer, Tensor& weight, int n_power_iterations = 1, double eps = 1e-12, std::string name = "");
  SpectralNorm(std::shared_ptr<Layer> layer, const std::string& weight, int n_power_iterations = 1,
               double eps = 1e-12, std::string name = "");
  // The options as saved; throws when the wrapped weight is one a saved model cannot name.
  const Options& options() const;
  Tensor u;
  // sigma of the weight with the current u (no iteration).
  Tensor sigma() const;

 protected:
  void prepare() override;
  Tensor reparametrise(const Tensor& w) override;

 private:
  Options options_;
};

// W = g * v / ||v||, the norm per output (over every axis but the last); v is the layer's
// weight and "g" [outputs] starts at ||v||, so the first call computes what the layer did.
class WeightNorm : public WeightWrapper {
 public:
  using Options = WeightNormOptions;
  STRATA_LAYER_MOVABLE(WeightNorm)
  explicit WeightNorm(Options options, std::string name = "");
  WeightNorm(Layer& layer, Tensor& weight, std::string name = "");
  WeightNorm(std::shared_ptr<Layer> layer, const std::string& weight, std::string name = "");
  // As SpectralNorm's.
  const Options& options() const;
  Tensor g;

 protected:
  void prepare() override;
  Tensor reparametrise(const Tensor& w) override;

 private:
  Options options_;
};

}  // namespace strata::nn
