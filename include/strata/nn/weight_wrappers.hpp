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

#include "strata/nn/layer.hpp"

namespace strata::nn {

// The shared part: `layer` (which must outlive the wrapper) and its weight member `weight`
// (e.g. dense.W, conv.W). The layer is built at the wrapper's first call; the weight's last
// axis is its output axis (TensorLayer's layouts), the others its input.
class WeightWrapper : public Layer {
 public:
  // {"layer": the wrapped layer's config, "weight": its name}; the classes add their arguments.
  void get_config(nlohmann::json& config) const override;

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

 private:
  std::shared_ptr<Layer> owned_;
  Layer* layer_;
  Tensor* weight_;
  bool prepared_ = false;
};

// W / sigma, sigma W's largest singular value (of W as a [inputs, outputs] matrix) estimated by
// power iteration: each training call runs n_power_iterations steps on the stored vector
// "u" [outputs] (non-trainable), eval reuses it. The gradient treats u as a constant, as
// PyTorch's does.
class SpectralNorm : public WeightWrapper {
 public:
  STRATA_LAYER_MOVABLE(SpectralNorm)
  SpectralNorm(Layer& layer, Tensor& weight, int n_power_iterations = 1, double eps = 1e-12, std::string name = "");
  // Owning the layer, its weight named (as Model::load builds it).
  SpectralNorm(std::shared_ptr<Layer> layer, const std::string& weight, int n_power_iterations = 1,
               double eps = 1e-12, std::string name = "");
  void get_config(nlohmann::json& config) const override;
  Tensor u;
  // sigma of the weight with the current u (no iteration).
  Tensor sigma() const;

 protected:
  void prepare() override;
  Tensor reparametrise(const Tensor& w) override;

 private:
  int n_power_iterations_;
  double eps_;
};

// W = g * v / ||v||, the norm per output (over every axis but the last); v is the layer's
// weight and "g" [outputs] starts at ||v||, so the first call computes what the layer did.
class WeightNorm : public WeightWrapper {
 public:
  STRATA_LAYER_MOVABLE(WeightNorm)
  WeightNorm(Layer& layer, Tensor& weight, std::string name = "");
  WeightNorm(std::shared_ptr<Layer> layer, const std::string& weight, std::string name = "");
  Tensor g;

 protected:
  void prepare() override;
  Tensor reparametrise(const Tensor& w) override;
};

}  // namespace strata::nn
