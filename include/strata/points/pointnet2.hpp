// PointNet++ (Qi et al., NeurIPS 2017): set abstraction (sample centres by farthest point
// sampling, group their neighbours within a radius, a shared MLP on each group's points
// relative to the centre, max over the group), single- or multi-scale, and feature propagation
// (carry a coarse level's features back to a finer one by inverse-distance interpolation).
// Clouds are [B, N, 3 + C], coordinates first, and so are the results, so the layers chain.
#pragma once
#include <memory>
#include <vector>

#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"
#include "strata/points/point_mlp.hpp"

namespace strata::points {

#define STRATA_SET_ABSTRACTION_OPTIONS(X)                                                                  \
  X(int64_t, npoint, 0, at_least(0), "centres sampled (farthest point sampling); 0 with group_all")        \
  X(std::vector<double>, radius, {}, at_least(0), "each scale's ball radius (one entry: single-scale)")    \
  X(std::vector<int64_t>, nsample, {}, at_least(1), "each scale's neighbours per centre")                  \
  X(std::vector<std::vector<int64_t>>, mlp, {}, at_least(1), "each scale's shared MLP levels")             \
  X(bool, group_all, false, any(), "one group of every point around the origin (the last level)")          \
  X(bool, use_xyz, true, any(), "the neighbours' offsets from their centre join their features")
STRATA_OPTIONS(SetAbstractionOptions, STRATA_SET_ABSTRACTION_OPTIONS);

// [B, N, 3 + C] -> [B, npoint, 3 + sum of each scale's last MLP level] (the centres' coordinates,
// then their features), or [B, 1, 3 + ...] with group_all (the centre at the origin).
class SetAbstraction : public nn::Layer {
 public:
  using Options = SetAbstractionOptions;
  STRATA_LAYER_MOVABLE(SetAbstraction)
  explicit SetAbstraction(Options options, std::string name = "");
  // Single-scale grouping, the paper's SSG.
  SetAbstraction(int64_t npoint, double radius, int64_t nsample, std::vector<int64_t> mlp, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  std::vector<std::unique_ptr<PointMlp>> mlps_;  // one per scale
};

#define STRATA_FEATURE_PROPAGATION_OPTIONS(X) \
  X(std::vector<int64_t>, mlp, {}, at_least(1), "shared MLP levels after the interpolation")
STRATA_OPTIONS(FeaturePropagationOptions, STRATA_FEATURE_PROPAGATION_OPTIONS);

// Called on {fine [B, N, 3 + C1], coarse [B, S, 3 + C2]}: the coarse features interpolated at
// the fine points (three nearest, or copied when S is 1), joined to the fine points' own
// features, through the MLP -> [B, N, 3 + mlp.back()].
class FeaturePropagation : public nn::Layer {
 public:
  using Options = FeaturePropagationOptions;
  STRATA_LAYER_MOVABLE(FeaturePropagation)
  explicit FeaturePropagation(Options options, std::string name = "");
  explicit FeaturePropagation(std::vector<int64_t> mlp, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  void build_many(const std::vector<Shape>& input_shapes) override;
  Tensor forward_many(const std::vector<Tensor>& xs) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  PointMlp mlp_;
};

#define STRATA_EDGE_CONV_OPTIONS(X)                                                               \
  X(int64_t, k, 20, at_least(1), "neighbours of each point, found in the input's own feature space") \
  X(std::vector<int64_t>, mlp, {}, at_least(1), "shared MLP levels on each edge feature")         \
  X(nn::Activation, act, "lrelu0.2", any(), "the MLP's activation (DGCNN's leaky ReLU)")
STRATA_OPTIONS(EdgeConvOptions, STRATA_EDGE_CONV_OPTIONS);

// DGCNN's EdgeConv (Wang et al., 2019) with its dynamic graph: each point's k nearest neighbours
// in the input's features (itself included, as DGCNN's), edge features [x_i, x_j - x_i] through
// the MLP, max over the neighbours: [B, N, C] -> [B, N, mlp.back()].
class EdgeConv : public nn::Layer {
 public:
  using Options = EdgeConvOptions;
  STRATA_LAYER_MOVABLE(EdgeConv)
  explicit EdgeConv(Options options, std::string name = "");
  EdgeConv(int64_t k, std::vector<int64_t> mlp, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  PointMlp mlp_;
};

}  // namespace strata::points
