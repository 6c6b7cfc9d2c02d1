#include "strata/points/xconv.hpp"

#include <algorithm>
#include <string>

#include "strata/nn/option_table.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/pointcloud.hpp"
#include "strata/ops/shape.hpp"

#include "points/checked_options.hpp"

namespace strata::nn {
STRATA_DEFINE_OPTIONS(points::XConvOptions, STRATA_XCONV_OPTIONS)
}  // namespace strata::nn

namespace strata::points {
namespace {

int64_t resolved_lift(const XConvOptions& o) { return o.C_pts_fts > 0 ? o.C_pts_fts : std::max<int64_t>(1, o.C / 4); }

// Every convolution here spans the K neighbours: kernel [1, K] over [B, P, K, channels] (NHWC,
// the P representative points as rows), VALID, so its output is [B, P, 1, ...].
SpatialSizes over_neighbours(const XConvOptions& o) { return {1, o.K}; }

}  // namespace

XConv::XConv(Options options, std::string name)
    : Layer("xconv", std::move(name)),
      options_(checked(std::move(options), *this)),
      lift_({.units = {resolved_lift(options_), resolved_lift(options_)}, .act = options_.act}, this->name() + "/lift"),
      x0_({.n_filter = options_.K * options_.K, .filter_size = over_neighbours(options_), .act = options_.act,
           .options = {}},
          this->name() + "/x_0"),
      x1_({.filter_size = over_neighbours(options_), .act = options_.act, .options = {}, .depth_multiplier = options_.K},
          this->name() + "/x_1"),
      x2_({.filter_size = over_neighbours(options_), .options = {}, .depth_multiplier = options_.K}, this->name() + "/x_2"),
      conv_({.n_filter = options_.C, .filter_size = over_neighbours(options_), .depth_multiplier = options_.depth_multiplier,
             .use_bias = false},
            this->name() + "/conv"),
      norm_({.act = options_.act}, this->name() + "/bn") {}

int64_t XConv::lifted_features() const { return resolved_lift(options_); }

Tensor XConv::forward(const Tensor& x) {
  expect(x.dim() == 3 && x.size(2) >= 3, "expected clouds [B, N, 3 + C] (coordinates first), got " + x.shape().str());
  const Options& o = options_;
  const int64_t B = x.size(0), N = x.size(1), K = o.K, P = o.P > 0 ? o.P : N;
  expect(K * o.D <= N, "takes K * D = " + std::to_string(K * o.D) + " nearest points from clouds of " +
                           std::to_string(N) + " points");
  expect(P <= N, "samples P = " + std::to_string(P) + " representative points from clouds of " + std::to_string(N) +
                     " points");
  const Tensor xyz = x.narrow(2, 0, 3), coordinates = xyz.detach();
  // The representative points, and each one's K * D nearest, every D-th kept: [B, P, K].
  const Tensor reps =
      o.P > 0 ? squeeze(group_points(xyz, unsqueeze(farthest_point_sample(coordinates, P), 2)), 2) : xyz;
  const Tensor idx = slice(knn(reps.detach(), coordinates, K * o.D), 2, 0, K * o.D, o.D);
  const Tensor local = group_points(xyz, idx) - unsqueeze(reps, 2);  // [B, P, K, 3]
  Tensor features = lift_(local);                                     // [B, P, K, C_pts_fts]
  if (x.size(2) > 3) features = concat({features, group_points(x.narrow(2, 3, x.size(2) - 3), idx)}, 3);
  if (o.with_X_transformation) {
    // [B, P, 1, K * K] -> X [B, P, K, K]; as [B, P, K, K] rows are neighbours, columns channels.
    const Tensor x_0 = reshape(x0_(local), {B, P, K, K});
    const Tensor x_1 = reshape(x1_(x_0), {B, P, K, K});
    features = matmul(reshape(x2_(x_1), {B, P, K, K}), features);
  }
  return concat({reps, squeeze(norm_(conv_(features)), 2)}, 2);
}

STRATA_LAYER("xconv", XConv);

}  // namespace strata::points
