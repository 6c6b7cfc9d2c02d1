#include "strata/nn/layers/norm.hpp"

#include "strata/nn/option_table.hpp"

#include <algorithm>

#include "strata/ops/elementwise.hpp"
#include "strata/ops/normalization.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {
namespace {

// (x - mean) / sqrt(var + eps) over `axes`, then gamma and beta broadcast over the last axis.
Tensor normalize(const Tensor& x, const Axes& axes, const Tensor& gamma, const Tensor& beta, double eps) {
  Tensor centered = x - mean(x, axes, /*keepdim=*/true);
  Tensor y = centered * rsqrt(var(x, axes, /*correction=*/0, /*keepdim=*/true) + eps);
  if (gamma.defined()) y = y * gamma;
  if (beta.defined()) y = y + beta;
  return y;
}

}  // namespace

Tensor instance_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps) {
  STRATA_CHECK(x.dim() >= 3, "instance_norm: expected input [N, spatial..., C], got ", x.shape().str());
  Axes spatial;
  for (int d = 1; d + 1 < x.dim(); ++d) spatial.push_back(d);
  return normalize(x, spatial, gamma, beta, eps);
}

Tensor group_norm(const Tensor& x, int64_t groups, const Tensor& gamma, const Tensor& beta, double eps) {
  STRATA_CHECK(x.dim() >= 2, "group_norm: expected input [N, ..., C], got ", x.shape().str());
  const int64_t C = x.shape().back();
  STRATA_CHECK(groups > 0 && C % groups == 0, "group_norm: ", groups, " groups do not divide ", C, " channels");
  // [N, s..., C] -> [N, s..., G, C/G], normalised over everything but N and G.
  Shape grouped = x.shape();
  grouped[grouped.size() - 1] = groups;
  grouped.push_back(C / groups);
  Axes axes;
  for (int d = 1; d < grouped.size(); ++d)
    if (d != grouped.size() - 2) axes.push_back(d);
  Tensor y = reshape(normalize(reshape(x, grouped), axes, Tensor(), Tensor(), eps), x.shape());
  if (gamma.defined()) y = y * gamma;
  if (beta.defined()) y = y + beta;
  return y;
}

// ---- BatchNorm

namespace {

// -1 (inferred) or a size: the bound model files had for num_features.
void check_num_features(const Layer& layer, int64_t num_features) {
  STRATA_CHECK(num_features != 0, owner_text(layer), ": \"num_features\" must be -1 (inferred) or positive, got 0");
}

}  // namespace

BatchNorm::BatchNorm(Options options, std::string name)
    : BatchNorm("batchnorm", {}, std::move(options), std::move(name)) {}

BatchNorm::BatchNorm(double decay, double epsilon, Activation act, std::string name, int64_t num_features,
                     Initializer beta_init, Initializer gamma_init, Initializer moving_mean_init,
                     Initializer moving_var_init)
    : BatchNorm(Options{.decay = decay,
                        .epsilon = epsilon,
                        .act = std::move(act),
                        .num_features = num_features,
                        .beta_init = std::move(beta_init),
                        .gamma_init = std::move(gamma_init),
                        .moving_mean_init = std::move(moving_mean_init),
                        .moving_var_init = std::move(moving_var_init)},
                std::move(name)) {}

BatchNorm::BatchNorm(std::string kind, std::vector<int> ranks, Options options, std::string name)
    : Layer(std::move(kind), std::move(name)), ranks_(std::move(ranks)), options_(std::move(options)) {
  check_options(options_, *this);
  check_num_features(*this, options_.num_features);
}

BatchNorm1d::BatchNorm1d(Options options, std::string name)
    : BatchNorm("batchnorm1d", {2, 3}, std::move(options), std::move(name)) {}
BatchNorm2d::BatchNorm2d(Options options, std::string name)
    : BatchNorm("batchnorm2d", {4}, std::move(options), std::move(name)) {}
BatchNorm3d::BatchNorm3d(Options options, std::string name)
    : BatchNorm("batchnorm3d", {5}, std::move(options), std::move(name)) {}

BatchNorm1d::BatchNorm1d(double decay, double epsilon, Activation act, std::string name, int64_t num_features)
    : BatchNorm1d(Options{.decay = decay, .epsilon = epsilon, .act = std::move(act), .num_features = num_features},
                  std::move(name)) {}
BatchNorm2d::BatchNorm2d(double decay, double epsilon, Activation act, std::string name, int64_t num_features)
    : BatchNorm2d(Options{.decay = decay, .epsilon = epsilon, .act = std::move(act), .num_features = num_features},
                  std::move(name)) {}
BatchNorm3d::BatchNorm3d(double decay, double epsilon, Activation act, std::string name, int64_t num_features)
    : BatchNorm3d(Options{.decay = decay, .epsilon = epsilon, .act = std::move(act), .num_features = num_features},
                  std::move(name)) {}

void BatchNorm::check(const Shape& s) const {
  // Indexed by the smallest rank allowed.
  static const char* layouts[] = {"", "", "[N, C] or [N, W, C]", "", "[N, H, W, C]", "[N, D, H, W, C]"};
  if (ranks_.empty()) {
    expect(s.size() >= 2, "expects input [N, ..., C], got " + s.str());
  } else {
    bool ok = std::find(ranks_.begin(), ranks_.end(), s.size()) != ranks_.end();
    expect(ok, std::string("expects input ") + layouts[ranks_.front()] + ", got " + s.str());
  }
  expect(
      options_.num_features < 0 || s.back() == options_.num_features,
      "expects " + std::to_string(options_.num_features) + " channels (the last axis), got input of shape " + s.str());
}

void BatchNorm::build(const Shape& s) {
  check(s);
  options_.num_features = s.back();
  const Shape c{options_.num_features};
  beta = add_weight("beta", c, options_.beta_init);
  gamma = add_weight("gamma", c, options_.gamma_init);
  moving_mean = add_weight("moving_mean", c, options_.moving_mean_init, /*trainable=*/false);
  moving_var = add_weight("moving_var", c, options_.moving_var_init, /*trainable=*/false);
}

Tensor BatchNorm::forward(const Tensor& x) {
  check(x.shape());
  return options_.act(
      batch_norm(x, gamma, beta, moving_mean, moving_var, training(), 1 - options_.decay, options_.epsilon));
}

// ---- LayerNorm

LayerNorm::LayerNorm(Options options, std::string name)
    : Layer("layernorm", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

LayerNorm::LayerNorm(Activation act, double epsilon, int begin_norm_axis, int begin_params_axis, bool center,
                     bool scale, std::string name, Initializer beta_init, Initializer gamma_init)
    : LayerNorm(Options{.act = std::move(act),
                        .epsilon = epsilon,
                        .begin_norm_axis = begin_norm_axis,
                        .begin_params_axis = begin_params_axis,
                        .center = center,
                        .scale = scale,
                        .beta_init = std::move(beta_init),
                        .gamma_init = std::move(gamma_init)},
                std::move(name)) {}

void LayerNorm::build(const Shape& s) {
  rank_ = s.size();
  auto resolve = [&](int& axis, const char* what) {
    int a = axis < 0 ? axis + rank_ : axis;
    expect(a >= 0 && a < rank_,
           std::string(what) + " " + std::to_string(axis) + " is out of range for input " + s.str());
    axis = a;
  };
  // Resolved in the options, as the model file has always held them.
  resolve(options_.begin_norm_axis, "begin_norm_axis");
  resolve(options_.begin_params_axis, "begin_params_axis");
  params_shape_ = Shape(s.begin() + options_.begin_params_axis, s.end());
  if (options_.center) beta = add_weight("beta", params_shape_, options_.beta_init);
  if (options_.scale) gamma = add_weight("gamma", params_shape_, options_.gamma_init);
}

Tensor LayerNorm::forward(const Tensor& x) {
  const Shape& s = x.shape();
  const Options& o = options_;
  expect(x.dim() == rank_ && Shape(s.begin() + o.begin_params_axis, s.end()) == params_shape_,
         "expected input of rank " + std::to_string(rank_) + " ending in " + params_shape_.str() + ", got " + s.str());
  std::vector<int64_t> normalized(s.begin() + o.begin_norm_axis, s.end());
  if (o.begin_norm_axis == o.begin_params_axis) return o.act(layer_norm(x, normalized, gamma, beta, o.epsilon));
  Tensor y = layer_norm(x, normalized, Tensor(), Tensor(), o.epsilon);
  if (o.scale) y = y * gamma;
  if (o.center) y = y + beta;
  return o.act(y);
}

// ---- InstanceNorm

InstanceNorm::InstanceNorm(Options options, std::string name)
    : Layer("instancenorm", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
  check_num_features(*this, options_.num_features);
}

InstanceNorm::InstanceNorm(Activation act, double epsilon, std::string name, int64_t num_features,
                           Initializer beta_init, Initializer gamma_init)
    : InstanceNorm(Options{.act = std::move(act),
                           .epsilon = epsilon,
                           .num_features = num_features,
                           .beta_init = std::move(beta_init),
                           .gamma_init = std::move(gamma_init)},
                   std::move(name)) {}

void InstanceNorm::build(const Shape& s) {
  expect(s.size() >= 3, "expects input [N, spatial..., C], got " + s.str());
  expect(
      options_.num_features < 0 || s.back() == options_.num_features,
      "expects " + std::to_string(options_.num_features) + " channels (the last axis), got input of shape " + s.str());
  rank_ = s.size();
  options_.num_features = s.back();
  beta = add_weight("beta", {options_.num_features}, options_.beta_init);
  gamma = add_weight("gamma", {options_.num_features}, options_.gamma_init);
}

Tensor InstanceNorm::forward(const Tensor& x) {
  const int64_t c = options_.num_features;
  expect(x.dim() == rank_ && x.shape().back() == c, "expected input of rank " + std::to_string(rank_) + " with " +
                                                        std::to_string(c) + " channels, got " + x.shape().str());
  return options_.act(instance_norm(x, gamma, beta, options_.epsilon));
}

// ---- GroupNorm

GroupNorm::GroupNorm(Options options, std::string name)
    : Layer("groupnorm", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

GroupNorm::GroupNorm(int64_t groups, Activation act, double epsilon, std::string name, Initializer beta_init,
                     Initializer gamma_init)
    : GroupNorm(Options{.groups = groups,
                        .act = std::move(act),
                        .epsilon = epsilon,
                        .beta_init = std::move(beta_init),
                        .gamma_init = std::move(gamma_init)},
                std::move(name)) {}

void GroupNorm::build(const Shape& s) {
  const int64_t groups = options_.groups;
  expect(s.size() >= 2, "expects input [N, ..., C], got " + s.str());
  expect(s.back() % groups == 0, std::to_string(groups) + " groups do not divide the " + std::to_string(s.back()) +
                                     " channels of input " + s.str());
  rank_ = s.size();
  channels_ = s.back();
  beta = add_weight("beta", {channels_}, options_.beta_init);
  gamma = add_weight("gamma", {channels_}, options_.gamma_init);
}

Tensor GroupNorm::forward(const Tensor& x) {
  expect(x.dim() == rank_ && x.shape().back() == channels_, "expected input of rank " + std::to_string(rank_) +
                                                                " with " + std::to_string(channels_) +
                                                                " channels, got " + x.shape().str());
  return options_.act(group_norm(x, options_.groups, gamma, beta, options_.epsilon));
}

STRATA_DEFINE_OPTIONS(BatchNormOptions, STRATA_BATCH_NORM_OPTIONS)
STRATA_LAYER("batchnorm", BatchNorm);
STRATA_LAYER("batchnorm1d", BatchNorm1d);
STRATA_LAYER("batchnorm2d", BatchNorm2d);
STRATA_LAYER("batchnorm3d", BatchNorm3d);

STRATA_DEFINE_OPTIONS(LayerNormOptions, STRATA_LAYER_NORM_OPTIONS)
STRATA_LAYER("layernorm", LayerNorm);

STRATA_DEFINE_OPTIONS(InstanceNormOptions, STRATA_INSTANCE_NORM_OPTIONS)
STRATA_LAYER("instancenorm", InstanceNorm);

STRATA_DEFINE_OPTIONS(GroupNormOptions, STRATA_GROUP_NORM_OPTIONS)
STRATA_LAYER("groupnorm", GroupNorm);

}  // namespace strata::nn
