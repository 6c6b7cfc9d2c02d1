// PointMlp: the "shared MLP" every point-cloud network is built from (PointNet's 1x1
// convolutions): Dense, BatchNorm and the activation per level, over the last axis of an input
// of any rank >= 2 ([B, P, C], [B, S, K, C], ...), so every point (and every neighbour) goes
// through the same weights. BatchNorm normalises over all the other axes, as PyTorch's
// BatchNorm1d/2d over [B, C, P] / [B, C, S, K] does.
#pragma once
#include <memory>
#include <vector>

#include "strata/nn/layer.hpp"
#include "strata/nn/layers/activation.hpp"
#include "strata/nn/layers/dense.hpp"
#include "strata/nn/layers/norm.hpp"
#include "strata/nn/options.hpp"

namespace strata::points {

#define STRATA_POINT_MLP_OPTIONS(X)                                                                        \
  X(std::vector<int64_t>, units, {}, at_least(1), "output features of each level, e.g. {64, 64, 128}")     \
  X(bool, batch_norm, true, any(), "a BatchNorm after each Dense, before the activation (PointNet's)")     \
  X(nn::Activation, act, nn::relu, any(), "each level's activation")                                       \
  X(nn::Initializer, w_init, nn::glorot_uniform(), not_saved(), "initializer of each Dense's W")
STRATA_OPTIONS(PointMlpOptions, STRATA_POINT_MLP_OPTIONS);

class PointMlp : public nn::Layer {
 public:
  using Options = PointMlpOptions;
  STRATA_LAYER_MOVABLE(PointMlp)
  explicit PointMlp(Options options, std::string name = "");
  explicit PointMlp(std::vector<int64_t> units, bool batch_norm = true, nn::Activation act = nn::relu,
                    std::string name = "");
  const Options& options() const { return options_; }
  int64_t out_features() const { return options_.units.back(); }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  // Children "<name>/dense_<i>" and "<name>/bn_<i>", held by pointer so that moving the layer
  // (into a static model) leaves them where their parents' links point.
  std::vector<std::unique_ptr<nn::Dense>> dense_;
  std::vector<std::unique_ptr<nn::BatchNorm>> norm_;
};

}  // namespace strata::points
