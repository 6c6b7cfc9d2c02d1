#include "strata/points/pointnet.hpp"

#include "strata/core/factory.hpp"
#include "strata/nn/option_table.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

#include "points/checked_options.hpp"

namespace strata::nn {
STRATA_DEFINE_OPTIONS(points::TransformNetOptions, STRATA_TRANSFORM_NET_OPTIONS)
STRATA_DEFINE_OPTIONS(points::PointNetOptions, STRATA_POINTNET_OPTIONS)
}  // namespace strata::nn

namespace strata::points {

Tensor orthogonality_loss(const Tensor& transform) {
  STRATA_CHECK(transform.defined() && transform.dim() == 3 && transform.size(1) == transform.size(2),
               "orthogonality_loss: expected transforms [B, k, k], got ",
               transform.defined() ? transform.shape().str() : "undefined");
  const Tensor gap = eye(transform.size(1), -1, transform.dtype()) - matmul(transform, transform.transpose(1, 2));
  return mean(sum(gap * gap, {1, 2})) * 0.5;
}

TransformNet::TransformNet(Options options, std::string name)
    : Layer("transformnet", std::move(name)),
      options_(checked(std::move(options), *this)),
      mlp_(options_.mlp, true, nn::relu, this->name() + "/mlp"),
      fc_(options_.fc, true, nn::relu, this->name() + "/fc"),
      out_(nn::DenseOptions{.units = options_.k * options_.k, .w_init = nn::zeros_init()}, this->name() + "/out") {}

Tensor TransformNet::forward(const Tensor& x) {
  const int64_t k = options_.k;
  expect(x.dim() == 3 && x.size(2) == k, "expected points [B, P, " + std::to_string(k) + "], got " + x.shape().str());
  const Tensor global = amax(mlp_(x), {1});  // [B, mlp.back()]
  const Tensor correction = out_(fc_(global)).reshape({x.size(0), k, k});
  return correction + eye(k, -1, correction.dtype());
}

PointNet::PointNet(Options options, std::string name)
    : Layer("pointnet", std::move(name)),
      options_(checked(std::move(options), *this)),
      mlp1_(options_.mlp1, true, nn::relu, this->name() + "/mlp1"),
      mlp2_(options_.mlp2, true, nn::relu, this->name() + "/mlp2") {
  if (options_.input_transform)
    input_net_ = std::make_unique<TransformNet>(TransformNetOptions{.k = 3}, this->name() + "/input_transform");
  if (options_.feature_transform)
    feature_net_ = std::make_unique<TransformNet>(TransformNetOptions{.k = options_.mlp1.back()},
                                                  this->name() + "/feature_transform");
}

Tensor PointNet::forward(const Tensor& x) {
  expect(x.dim() == 3 && x.size(2) >= 3, "expected clouds [B, P, 3 + F] (coordinates first), got " + x.shape().str());
  Tensor points = x;
  if (input_net_) {
    // Only the coordinates turn; normals or colours after them keep their values.
    const Tensor xyz = x.narrow(2, 0, 3);
    const Tensor turned = matmul(xyz, (*input_net_)(xyz));
    points = x.size(2) == 3 ? turned : concat({turned, x.narrow(2, 3, x.size(2) - 3)}, 2);
  }
  Tensor local = mlp1_(points);  // [B, P, mlp1.back()]
  feature_transform_ = Tensor();
  if (feature_net_) {
    feature_transform_ = (*feature_net_)(local);
    local = matmul(local, feature_transform_);
  }
  const Tensor global = amax(mlp2_(local), {1});  // [B, mlp2.back()]
  if (options_.global_only) return global;
  const Shape spread{x.size(0), x.size(1), global.size(1)};
  return concat({local, expand(unsqueeze(global, 1), spread)}, 2);
}

STRATA_LAYER("transformnet", TransformNet);
STRATA_LAYER("pointnet", PointNet);

}  // namespace strata::points
