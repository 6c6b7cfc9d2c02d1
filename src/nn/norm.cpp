#include "strata/nn/norm.hpp"

#include "strata/nn/layer_config.hpp"

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

std::string str(int64_t v) { return std::to_string(v); }

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

BatchNorm::BatchNorm(double decay, double epsilon, Activation act, std::string name, int64_t num_features,
                     Initializer beta_init, Initializer gamma_init, Initializer moving_mean_init,
                     Initializer moving_var_init)
    : BatchNorm("batchnorm", {}, decay, epsilon, std::move(act), std::move(name), num_features, std::move(beta_init),
                std::move(gamma_init), std::move(moving_mean_init), std::move(moving_var_init)) {}

BatchNorm::BatchNorm(std::string kind, std::vector<int> ranks, double decay, double epsilon, Activation act,
                     std::string name, int64_t num_features, Initializer beta_init, Initializer gamma_init,
                     Initializer moving_mean_init, Initializer moving_var_init)
    : Layer(std::move(kind), std::move(name)), ranks_(std::move(ranks)), decay_(decay), epsilon_(epsilon),
      act_(std::move(act)), num_features_(num_features), beta_init_(std::move(beta_init)),
      gamma_init_(std::move(gamma_init)), mean_init_(std::move(moving_mean_init)),
      var_init_(std::move(moving_var_init)) {
  expect(decay >= 0 && decay <= 1, "decay must be in [0, 1], got " + std::to_string(decay));
  expect(epsilon >= 0, "epsilon must be non-negative, got " + std::to_string(epsilon));
}

BatchNorm1d::BatchNorm1d(double decay, double epsilon, Activation act, std::string name, int64_t num_features)
    : BatchNorm("batchnorm1d", {2, 3}, decay, epsilon, std::move(act), std::move(name), num_features, zeros_init(),
                ones_init(), zeros_init(), ones_init()) {}
BatchNorm2d::BatchNorm2d(double decay, double epsilon, Activation act, std::string name, int64_t num_features)
    : BatchNorm("batchnorm2d", {4}, decay, epsilon, std::move(act), std::move(name), num_features, zeros_init(),
                ones_init(), zeros_init(), ones_init()) {}
BatchNorm3d::BatchNorm3d(double decay, double epsilon, Activation act, std::string name, int64_t num_features)
    : BatchNorm("batchnorm3d", {5}, decay, epsilon, std::move(act), std::move(name), num_features, zeros_init(),
                ones_init(), zeros_init(), ones_init()) {}

void BatchNorm::check(const Shape& s) const {
  // Indexed by the smallest rank allowed.
  static const char* layouts[] = {"", "", "[N, C] or [N, W, C]", "", "[N, H, W, C]", "[N, D, H, W, C]"};
  if (ranks_.empty()) {
    expect(s.size() >= 2, "expects input [N, ..., C], got " + s.str());
  } else {
    bool ok = std::find(ranks_.begin(), ranks_.end(), s.size()) != ranks_.end();
    expect(ok, std::string("expects input ") + layouts[ranks_.front()] + ", got " + s.str());
  }
  expect(num_features_ < 0 || s.back() == num_features_,
         "expects " + str(num_features_) + " channels (the last axis), got input of shape " + s.str());
}

void BatchNorm::build(const Shape& s) {
  check(s);
  num_features_ = s.back();
  const Shape c{num_features_};
  beta = add_weight("beta", c, beta_init_);
  gamma = add_weight("gamma", c, gamma_init_);
  moving_mean = add_weight("moving_mean", c, mean_init_, /*trainable=*/false);
  moving_var = add_weight("moving_var", c, var_init_, /*trainable=*/false);
}

Tensor BatchNorm::forward(const Tensor& x) {
  check(x.shape());
  return act_(batch_norm(x, gamma, beta, moving_mean, moving_var, training(), 1 - decay_, epsilon_));
}

// ---- LayerNorm

LayerNorm::LayerNorm(Activation act, double epsilon, int begin_norm_axis, int begin_params_axis, bool center,
                     bool scale, std::string name, Initializer beta_init, Initializer gamma_init)
    : Layer("layernorm", std::move(name)), act_(std::move(act)), epsilon_(epsilon), begin_norm_axis_(begin_norm_axis),
      begin_params_axis_(begin_params_axis), center_(center), scale_(scale), beta_init_(std::move(beta_init)),
      gamma_init_(std::move(gamma_init)) {}

void LayerNorm::build(const Shape& s) {
  rank_ = s.size();
  auto resolve = [&](int& axis, const char* what) {
    int a = axis < 0 ? axis + rank_ : axis;
    expect(a >= 0 && a < rank_, std::string(what) + " " + str(axis) + " is out of range for input " + s.str());
    axis = a;
  };
  resolve(begin_norm_axis_, "begin_norm_axis");
  resolve(begin_params_axis_, "begin_params_axis");
  params_shape_ = Shape(s.begin() + begin_params_axis_, s.end());
  if (center_) beta = add_weight("beta", params_shape_, beta_init_);
  if (scale_) gamma = add_weight("gamma", params_shape_, gamma_init_);
}

Tensor LayerNorm::forward(const Tensor& x) {
  const Shape& s = x.shape();
  expect(x.dim() == rank_ && Shape(s.begin() + begin_params_axis_, s.end()) == params_shape_,
         "expected input of rank " + str(rank_) + " ending in " + params_shape_.str() + ", got " + s.str());
  std::vector<int64_t> normalized(s.begin() + begin_norm_axis_, s.end());
  if (begin_norm_axis_ == begin_params_axis_) return act_(layer_norm(x, normalized, gamma, beta, epsilon_));
  Tensor y = layer_norm(x, normalized, Tensor(), Tensor(), epsilon_);
  if (scale_) y = y * gamma;
  if (center_) y = y + beta;
  return act_(y);
}

// ---- InstanceNorm

InstanceNorm::InstanceNorm(Activation act, double epsilon, std::string name, int64_t num_features,
                           Initializer beta_init, Initializer gamma_init)
    : Layer("instancenorm", std::move(name)), act_(std::move(act)), epsilon_(epsilon), num_features_(num_features),
      beta_init_(std::move(beta_init)), gamma_init_(std::move(gamma_init)) {}

void InstanceNorm::build(const Shape& s) {
  expect(s.size() >= 3, "expects input [N, spatial..., C], got " + s.str());
  expect(num_features_ < 0 || s.back() == num_features_,
         "expects " + str(num_features_) + " channels (the last axis), got input of shape " + s.str());
  rank_ = s.size();
  num_features_ = s.back();
  beta = add_weight("beta", {num_features_}, beta_init_);
  gamma = add_weight("gamma", {num_features_}, gamma_init_);
}

Tensor InstanceNorm::forward(const Tensor& x) {
  expect(x.dim() == rank_ && x.shape().back() == num_features_,
         "expected input of rank " + str(rank_) + " with " + str(num_features_) + " channels, got " + x.shape().str());
  return act_(instance_norm(x, gamma, beta, epsilon_));
}

// ---- GroupNorm

GroupNorm::GroupNorm(int64_t groups, Activation act, double epsilon, std::string name, Initializer beta_init,
                     Initializer gamma_init)
    : Layer("groupnorm", std::move(name)), groups_(groups), act_(std::move(act)), epsilon_(epsilon),
      beta_init_(std::move(beta_init)), gamma_init_(std::move(gamma_init)) {
  expect(groups > 0, "groups must be positive, got " + str(groups));
}

void GroupNorm::build(const Shape& s) {
  expect(s.size() >= 2, "expects input [N, ..., C], got " + s.str());
  expect(s.back() % groups_ == 0,
         str(groups_) + " groups do not divide the " + str(s.back()) + " channels of input " + s.str());
  rank_ = s.size();
  channels_ = s.back();
  beta = add_weight("beta", {channels_}, beta_init_);
  gamma = add_weight("gamma", {channels_}, gamma_init_);
}

Tensor GroupNorm::forward(const Tensor& x) {
  expect(x.dim() == rank_ && x.shape().back() == channels_,
         "expected input of rank " + str(rank_) + " with " + str(channels_) + " channels, got " + x.shape().str());
  return act_(group_norm(x, groups_, gamma, beta, epsilon_));
}

using nlohmann::json;


void BatchNorm::get_config(json& c) const {
  c = {{"decay", decay_}, {"epsilon", epsilon_}, {"act", activation_name(act_, *this)}, {"num_features", num_features_}};
}

template <class L>
std::shared_ptr<Layer> batch_norm_from_config(const json& c, const std::string& name) {
  return std::make_shared<L>(c.at("decay").get<double>(), c.at("epsilon").get<double>(),
                             Activation(c.at("act").get<std::string>()), name, c.at("num_features").get<int64_t>());
}

STRATA_LAYER_CLASS("batchnorm", batch_norm_from_config<BatchNorm>);
STRATA_LAYER_CLASS("batchnorm1d", batch_norm_from_config<BatchNorm1d>);
STRATA_LAYER_CLASS("batchnorm2d", batch_norm_from_config<BatchNorm2d>);
STRATA_LAYER_CLASS("batchnorm3d", batch_norm_from_config<BatchNorm3d>);

void LayerNorm::get_config(json& c) const {
  c = {{"act", activation_name(act_, *this)}, {"epsilon", epsilon_}, {"begin_norm_axis", begin_norm_axis_},
       {"begin_params_axis", begin_params_axis_}, {"center", center_}, {"scale", scale_}};
}

STRATA_LAYER_CLASS("layernorm", [](const json& c, const std::string& name) {
  return std::make_shared<LayerNorm>(Activation(c.at("act").get<std::string>()), c.at("epsilon").get<double>(),
                                     c.at("begin_norm_axis").get<int>(), c.at("begin_params_axis").get<int>(),
                                     c.at("center").get<bool>(), c.at("scale").get<bool>(), name);
});

void InstanceNorm::get_config(json& c) const {
  c = {{"act", activation_name(act_, *this)}, {"epsilon", epsilon_}, {"num_features", num_features_}};
}

STRATA_LAYER_CLASS("instancenorm", [](const json& c, const std::string& name) {
  return std::make_shared<InstanceNorm>(Activation(c.at("act").get<std::string>()), c.at("epsilon").get<double>(), name,
                                        c.at("num_features").get<int64_t>());
});

void GroupNorm::get_config(json& c) const {
  c = {{"groups", groups_}, {"act", activation_name(act_, *this)}, {"epsilon", epsilon_}};
}

STRATA_LAYER_CLASS("groupnorm", [](const json& c, const std::string& name) {
  return std::make_shared<GroupNorm>(c.at("groups").get<int64_t>(), Activation(c.at("act").get<std::string>()),
                                     c.at("epsilon").get<double>(), name);
});

}  // namespace strata::nn
