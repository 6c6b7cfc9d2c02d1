// PointNet (Qi et al., CVPR 2017): a shared MLP on every point, a symmetric max over the points,
// and learned alignment: transform nets predict a k x k matrix that the points (k = 3) or their
// features (k = 64) are multiplied by. Clouds are [B, P, 3 + F], coordinates first.
#pragma once
#include <vector>

#include "strata/nn/layer.hpp"
#include "strata/nn/layers/dense.hpp"
#include "strata/nn/options.hpp"
#include "strata/points/point_mlp.hpp"

namespace strata::points {

// PointNet's regulariser of a feature transform T [B, k, k]: ||I - T T^T||_F^2 / 2 per cloud
// (TensorFlow's l2_loss, as the paper's code), averaged over the batch so that its weight
// (0.001 in the paper) does not depend on the batch size. A scalar.
Tensor orthogonality_loss(const Tensor& transform);

#define STRATA_TRANSFORM_NET_OPTIONS(X)                                                    \
  X(int64_t, k, 3, at_least(1), "size of the predicted matrix: the input's features")      \
  X(std::vector<int64_t>, mlp, (std::vector<int64_t>{64, 128, 1024}), at_least(1), "per-point levels") \
  X(std::vector<int64_t>, fc, (std::vector<int64_t>{512, 256}), at_least(1), "levels after the max")
STRATA_OPTIONS(TransformNetOptions, STRATA_TRANSFORM_NET_OPTIONS);

// PointNet's T-Net: [B, P, k] -> [B, k, k], the identity plus a learned correction whose last
// Dense starts at zero, so an untrained net leaves its input as it is.
class TransformNet : public nn::Layer {
 public:
  using Options = TransformNetOptions;
  STRATA_LAYER_MOVABLE(TransformNet)
  explicit TransformNet(Options options, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  PointMlp mlp_, fc_;
  nn::Dense out_;
};

#define STRATA_POINTNET_OPTIONS(X)                                                                         \
  X(bool, input_transform, true, any(), "align the coordinates with a 3 x 3 transform net")                \
  X(bool, feature_transform, true, any(), "align the features after mlp1 with a transform net")            \
  X(std::vector<int64_t>, mlp1, (std::vector<int64_t>{64, 64}), at_least(1), "per-point levels before the feature transform") \
  X(std::vector<int64_t>, mlp2, (std::vector<int64_t>{64, 128, 1024}), at_least(1), "per-point levels after it") \
  X(bool, global_only, true, any(),                                                                       \
    "true: the global feature [B, mlp2.back()]; false: each point's mlp1 features with the global one "   \
    "[B, P, mlp1.back() + mlp2.back()], for segmentation")
STRATA_OPTIONS(PointNetOptions, STRATA_POINTNET_OPTIONS);

// PointNet's encoder: [B, P, 3 + F] -> the global feature (classification) or per-point
// features (segmentation); a Dense head on top makes the classifier. After each call,
// feature_transform() is the matrix it applied (undefined without a feature transform), to add
// orthogonality_loss of it to the training loss.
class PointNet : public nn::Layer {
 public:
  using Options = PointNetOptions;
  STRATA_LAYER_MOVABLE(PointNet)
  explicit PointNet(Options options = {}, std::string name = "");
  const Options& options() const { return options_; }
  const Tensor& feature_transform() const { return feature_transform_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  std::unique_ptr<TransformNet> input_net_, feature_net_;
  PointMlp mlp1_, mlp2_;
  Tensor feature_transform_;
};

}  // namespace strata::points
