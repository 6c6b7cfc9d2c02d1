// PointCNN's X-Conv (Li et al., NeurIPS 2018, "PointCNN: Convolution On X-Transformed Points"),
// as the official code's `xconv`: each representative point's K neighbours, their coordinates
// relative to it lifted by an MLP and joined to their features, multiplied by a K x K matrix X
// learned from those coordinates (so that the neighbours' order stops mattering), then one
// separable convolution over the K neighbours. Clouds are [B, N, 3 + C_in], coordinates first,
// and so is the result, [B, P, 3 + C], so X-Convs chain, and chain with the PointNet++ layers.
#pragma once
#include "strata/nn/layer.hpp"
#include "strata/nn/layers/conv.hpp"
#include "strata/nn/layers/norm.hpp"
#include "strata/nn/options.hpp"
#include "strata/points/point_mlp.hpp"

namespace strata::points {

// The options keep the paper's names (its code's `xconv(..., K, D, P, C, C_pts_fts,
// with_X_transformation, depth_multiplier)`).
#define STRATA_XCONV_OPTIONS(X)                                                                                   \
  X(int64_t, K, 8, at_least(1), "neighbours of each representative point (itself among them)")                    \
  X(int64_t, D, 1, at_least(1), "dilation: of the K * D nearest, every D-th, nearest first")                     \
  X(int64_t, P, -1, at_least(-1), "representative points, by farthest point sampling; -1 or 0: every input point") \
  X(int64_t, C, 0, at_least(1), "output features")                                                                \
  X(int64_t, C_pts_fts, -1, at_least(-1), "features the local coordinates are lifted to; -1: max(1, C / 4)")      \
  X(int64_t, depth_multiplier, 1, at_least(1), "the separable convolution's depthwise filters per input channel") \
  X(bool, with_X_transformation, true, any(), "learn X; false: the neighbours in distance order (the ablation)")  \
  X(nn::Activation, act, "elu", any(), "of the lifting MLP, X's first two steps and the output (the paper's ELU)")
STRATA_OPTIONS(XConvOptions, STRATA_XCONV_OPTIONS);

// [B, N, 3 + C_in] -> [B, P, 3 + C] (every point's, [B, N, 3 + C], with P -1 or 0): the
// representative points' coordinates (the input's own when P is -1 or 0), then their features.
// Per representative point p and its neighbours q_1..q_K (knn over the coordinates):
//   local  = q_k - p                                  [K, 3]
//   lifted = lift(local)                              [K, C_pts_fts]  Dense, BatchNorm, act, twice
//   F      = [lifted, the neighbours' features]       [K, C_pts_fts + C_in]
//   X      = x_2(x_1(x_0(local)))                     [K, K]  x_0: a convolution over the K
//            neighbours' coordinates to K * K (act), x_1 and x_2: depthwise convolutions over
//            the K columns of the K x K (act, then none), the paper's three steps
//   out    = act(BatchNorm(separable conv over the K rows of X F))            [C]
// Weights, as TensorFlow's layers of the official code: "<name>/lift/dense_i/W" [.., C_pts_fts],
// "<name>/x_0/W" [1, K, 3, K * K], "<name>/x_1/W" and "<name>/x_2/W" [1, K, K, K],
// "<name>/conv/depthwise_W" [1, K, C_pts_fts + C_in, depth_multiplier], "<name>/conv/pointwise_W"
// [1, 1, .., C], "<name>/bn/...". Like PointMlp (and unlike the official code, which normalises
// after the activation) each BatchNorm comes before its activation.
//
// Classification, as the paper's ModelNet network at a third of its widths for 512-point clouds
// (examples/pointcloud_classify.cpp, "pointcnn"): XConv K 8 D 1 P -1 C 48 -> K 12 D 2 P 128 C 96
// -> K 16 D 2 P 64 C 192 (depth multipliers 4, 2, 2: the paper's ceil(C / C_prev)), then a mean
// over the representative points and Dense layers.
class XConv : public nn::Layer {
 public:
  using Options = XConvOptions;
  STRATA_LAYER_MOVABLE(XConv)
  explicit XConv(Options options, std::string name = "");
  const Options& options() const { return options_; }
  // C_pts_fts with -1 resolved.
  int64_t lifted_features() const;

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  PointMlp lift_;
  nn::Conv2d x0_;
  nn::DepthwiseConv2d x1_, x2_;
  nn::SeparableConv2d conv_;
  nn::BatchNorm norm_;
};

}  // namespace strata::points
