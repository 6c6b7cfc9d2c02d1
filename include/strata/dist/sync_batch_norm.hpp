// SyncBatchNorm: batch normalisation whose batch statistics are those of the global batch, over
// every process of the job (PyTorch's SyncBatchNorm), for models whose per-process batches are
// too small for good statistics. The same weights as nn::BatchNorm (beta, gamma, moving_mean,
// moving_var, [C], channels last) and the same rule for the moving statistics; eval() uses them
// as BatchNorm does. In training each call costs one all-reduce of 2C + 1 numbers forward and
// one backward, so every process must call it equally often (as it runs the same model).
//   struct Net : nn::Module { nn::Dense a{64}; dist::SyncBatchNorm bn; ... };
// A static model's BatchNorm layers are replaced by convert_sync_batch_norm (below).
#pragma once
#include <memory>

#include "strata/nn/layer.hpp"
#include "strata/nn/layers/activation.hpp"
#include "strata/nn/model.hpp"
#include "strata/nn/options.hpp"

namespace strata::dist {

// The element-wise sum of every process's t, as a differentiable op: the gradient that reaches
// each process's t is the sum of the gradients of every process's result.
Tensor all_reduce_sum(const Tensor& t);

// BatchNorm's keys but num_features (the weights take the channels of the first input).
#define STRATA_SYNC_BATCH_NORM_OPTIONS(X)                                                          \
  X(double, decay, 0.9, between(0, 1), "moving = decay * moving + (1 - decay) * batch")           \
  X(double, epsilon, 1e-5, at_least(0), "added to the variance")                                 \
  X(nn::Activation, act, {}, any(), "applied to the normalised output; empty: none")
STRATA_OPTIONS(SyncBatchNormOptions, STRATA_SYNC_BATCH_NORM_OPTIONS);

class SyncBatchNorm : public nn::Layer {  // layer class "sync_batchnorm"
 public:
  using Options = SyncBatchNormOptions;
  explicit SyncBatchNorm(Options options, std::string name = "");
  explicit SyncBatchNorm(double decay = 0.9, double epsilon = 1e-5, nn::Activation act = {}, std::string name = "");
  const Options& options() const { return options_; }
  Tensor beta, gamma, moving_mean, moving_var;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

// A copy of `model` in which every BatchNorm layer (classes batchnorm and batchnorm1d/2d/3d, in
// nested models and wrappers too) is a SyncBatchNorm of the same name, decay, epsilon, activation
// and weights (PyTorch's SyncBatchNorm.convert_sync_batchnorm); every other layer is the same
// class with the same weights. `model` itself is left as it was. The copy is in training mode.
// Static models only: a Module's layers are members of its C++ class, so declare those as
// SyncBatchNorm there. Throws strata::Error for a model that to_json cannot describe.
std::shared_ptr<nn::Model> convert_sync_batch_norm(const nn::Model& model);

}  // namespace strata::dist
