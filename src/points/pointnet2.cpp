#include "strata/points/pointnet2.hpp"

#include <string>

#include "strata/nn/option_table.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/pointcloud.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

#include "points/checked_options.hpp"

namespace strata::nn {
STRATA_DEFINE_OPTIONS(points::SetAbstractionOptions, STRATA_SET_ABSTRACTION_OPTIONS)
STRATA_DEFINE_OPTIONS(points::FeaturePropagationOptions, STRATA_FEATURE_PROPAGATION_OPTIONS)
STRATA_DEFINE_OPTIONS(points::EdgeConvOptions, STRATA_EDGE_CONV_OPTIONS)
}  // namespace strata::nn

namespace strata::points {
namespace {

// x [B, N, 3 + C] split into its coordinates and its features (undefined when C is 0).
struct Cloud {
  Tensor xyz, features;
};
Cloud split(const Tensor& x) {
  return {x.narrow(2, 0, 3), x.size(2) > 3 ? x.narrow(2, 3, x.size(2) - 3) : Tensor()};
}

// The grouped points' input to the MLP: their offsets from the centre and their features.
Tensor group_input(const Cloud& cloud, const Tensor& idx, const Tensor& centres, bool use_xyz) {
  std::vector<Tensor> parts;
  if (use_xyz) parts.push_back(group_points(cloud.xyz, idx) - unsqueeze(centres, 2));
  if (cloud.features.defined()) parts.push_back(group_points(cloud.features, idx));
  return parts.size() == 1 ? parts[0] : concat(parts, -1);
}

}  // namespace

SetAbstraction::SetAbstraction(Options options, std::string name)
    : Layer("setabstraction", std::move(name)), options_(checked(std::move(options), *this)) {
  const Options& o = options_;
  const std::string me = nn::owner_text(*this);
  if (o.group_all) {
    STRATA_CHECK(o.mlp.size() == 1, me, ": group_all takes one \"mlp\", got ", std::to_string(o.mlp.size()));
  } else {
    STRATA_CHECK(o.npoint >= 1, me, ": \"npoint\" must be at least 1 without group_all");
    STRATA_CHECK(!o.radius.empty() && o.radius.size() == o.nsample.size() && o.radius.size() == o.mlp.size(), me,
                 ": \"radius\", \"nsample\" and \"mlp\" need one entry per scale, got ", std::to_string(o.radius.size()),
                 ", ", std::to_string(o.nsample.size()), " and ", std::to_string(o.mlp.size()));
  }
  for (size_t s = 0; s < o.mlp.size(); ++s)
    mlps_.push_back(std::make_unique<PointMlp>(o.mlp[s], true, nn::relu, this->name() + "/mlp_" + std::to_string(s)));
}

SetAbstraction::SetAbstraction(int64_t npoint, double radius, int64_t nsample, std::vector<int64_t> mlp, std::string name)
    : SetAbstraction(Options{.npoint = npoint, .radius = {radius}, .nsample = {nsample}, .mlp = {std::move(mlp)}},
                     std::move(name)) {}

Tensor SetAbstraction::forward(const Tensor& x) {
  expect(x.dim() == 3 && x.size(2) >= 3, "expected clouds [B, N, 3 + C] (coordinates first), got " + x.shape().str());
  const Cloud cloud = split(x);
  const int64_t B = x.size(0), N = x.size(1);
  expect(options_.use_xyz || cloud.features.defined(), "has no features to group: use_xyz is off and C is 0");
  if (options_.group_all) {
    // Every point in one group around the origin: its offsets are its coordinates.
    const Tensor all = expand(arange(N).reshape({1, 1, N}), {B, 1, N}).contiguous();
    const Tensor centres = zeros({B, 1, 3}, x.dtype());
    const Tensor features = amax((*mlps_[0])(group_input(cloud, all, centres, options_.use_xyz)), {2});
    return concat({centres, features}, 2);
  }
  expect(options_.npoint <= N, "samples " + std::to_string(options_.npoint) + " centres from clouds of " +
                                   std::to_string(N) + " points");
  const Tensor coordinates = cloud.xyz.detach();
  const Tensor centres = squeeze(group_points(cloud.xyz, unsqueeze(farthest_point_sample(coordinates, options_.npoint), 2)), 2);
  std::vector<Tensor> out{centres};
  for (size_t s = 0; s < mlps_.size(); ++s) {
    const Tensor idx = ball_query(centres.detach(), coordinates, options_.radius[s], options_.nsample[s]);
    out.push_back(amax((*mlps_[s])(group_input(cloud, idx, centres, options_.use_xyz)), {2}));
  }
  return concat(out, 2);
}

FeaturePropagation::FeaturePropagation(Options options, std::string name)
    : Layer("featurepropagation", std::move(name)),
      options_(checked(std::move(options), *this)),
      mlp_(options_.mlp, true, nn::relu, this->name() + "/mlp") {}

FeaturePropagation::FeaturePropagation(std::vector<int64_t> mlp, std::string name)
    : FeaturePropagation(Options{.mlp = std::move(mlp)}, std::move(name)) {}

void FeaturePropagation::build_many(const std::vector<Shape>& shapes) {
  expect(shapes.size() == 2, "takes {fine, coarse} clouds, got " + std::to_string(shapes.size()) + " inputs");
}

Tensor FeaturePropagation::forward_many(const std::vector<Tensor>& xs) {
  expect(xs.size() == 2, "takes {fine, coarse} clouds, got " + std::to_string(xs.size()) + " inputs");
  const Tensor &fine = xs[0], &coarse = xs[1];
  expect(fine.dim() == 3 && coarse.dim() == 3 && fine.size(0) == coarse.size(0) && fine.size(2) >= 3 && coarse.size(2) > 3,
         "expected fine [B, N, 3 + C1] and coarse [B, S, 3 + C2] clouds with C2 > 0, got " + fine.shape().str() +
             " and " + coarse.shape().str());
  const Cloud f = split(fine), c = split(coarse);
  const int64_t S = coarse.size(1);
  expect(S == 1 || S >= 3, "interpolates from 1 or at least 3 coarse points, got " + std::to_string(S));
  const Tensor carried = S == 1 ? expand(c.features, {fine.size(0), fine.size(1), c.features.size(2)})
                                : three_interpolate(c.features, c.xyz.detach(), f.xyz.detach());
  const Tensor joined = f.features.defined() ? concat({f.features, carried}, 2) : carried;
  return concat({f.xyz, mlp_(joined)}, 2);
}

Tensor FeaturePropagation::forward(const Tensor&) {
  expect(false, "takes {fine, coarse} clouds, got one tensor");
  return Tensor();
}

EdgeConv::EdgeConv(Options options, std::string name)
    : Layer("edgeconv", std::move(name)),
      options_(checked(std::move(options), *this)),
      mlp_(options_.mlp, true, options_.act, this->name() + "/mlp") {}

EdgeConv::EdgeConv(int64_t k, std::vector<int64_t> mlp, std::string name)
    : EdgeConv(Options{.k = k, .mlp = std::move(mlp)}, std::move(name)) {}

Tensor EdgeConv::forward(const Tensor& x) {
  expect(x.dim() == 3, "expected points [B, N, C], got " + x.shape().str());
  expect(options_.k <= x.size(1), "k = " + std::to_string(options_.k) + " neighbours in clouds of " +
                                      std::to_string(x.size(1)) + " points");
  const Tensor idx = knn(x.detach(), x.detach(), options_.k);  // [B, N, k], the graph of this call's features
  const Tensor neighbours = group_points(x, idx);               // [B, N, k, C]
  const Tensor centre = expand(unsqueeze(x, 2), neighbours.shape());
  return amax(mlp_(concat({centre, neighbours - centre}, 3)), {2});
}

STRATA_LAYER("setabstraction", SetAbstraction);
STRATA_LAYER("featurepropagation", FeaturePropagation);
STRATA_LAYER("edgeconv", EdgeConv);

}  // namespace strata::points
