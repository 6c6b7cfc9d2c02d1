#include "strata/nn/layers/norm.hpp"

#include "strata/nn/option_table.hpp"

#include "strata/autograd/grad_mode.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"
#include "strata/ops/softmax.hpp"

namespace strata::nn {
namespace {}  // namespace

Tensor local_response_norm(const Tensor& x, int64_t r, double bias, double alpha, double beta) {
  STRATA_CHECK(x.dim() >= 1 && is_floating(x.dtype()), "local_response_norm: expected a floating tensor [..., C], got ",
               x.shape().str(), " ", dtype_name(x.dtype()));
  STRATA_CHECK(r >= 0, "local_response_norm: depth_radius must be non-negative, got ", r);
  const int64_t c = x.shape().back();
  // The window sums of x² as 2r + 1 shifted slices of the zero-padded squares.
  Tensor padded = pad(square(x), {{r, r}});
  Tensor sums = slice(padded, -1, 0, c);
  for (int64_t k = 1; k <= 2 * r; ++k) sums = sums + slice(padded, -1, k, k + c);
  return x / pow(alpha * sums + bias, beta);
}

LocalResponseNorm::LocalResponseNorm(Options options, std::string name)
    : Layer("localresponsenorm", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

LocalResponseNorm::LocalResponseNorm(int64_t depth_radius, double bias, double alpha, double beta, std::string name)
    : LocalResponseNorm(Options{.depth_radius = depth_radius, .bias = bias, .alpha = alpha, .beta = beta},
                        std::move(name)) {}

Tensor LocalResponseNorm::forward(const Tensor& x) {
  expect(x.dim() >= 2, "expects input [N, ..., C], got " + x.shape().str());
  return local_response_norm(x, options_.depth_radius, options_.bias, options_.alpha, options_.beta);
}

SwitchNorm::SwitchNorm(Options options, std::string name)
    : Layer("switchnorm", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

SwitchNorm::SwitchNorm(Activation act, double epsilon, double decay, std::string name, Initializer beta_init,
                       Initializer gamma_init)
    : SwitchNorm(Options{.act = std::move(act),
                         .epsilon = epsilon,
                         .decay = decay,
                         .beta_init = std::move(beta_init),
                         .gamma_init = std::move(gamma_init)},
                 std::move(name)) {}

void SwitchNorm::build(const Shape& s) {
  expect(s.size() >= 3, "expects input [N, spatial..., C], got " + s.str());
  rank_ = static_cast<int>(s.size());
  channels_ = s.back();
  beta = add_weight("beta", {channels_}, options_.beta_init);
  gamma = add_weight("gamma", {channels_}, options_.gamma_init);
  mean_weight = add_weight("mean_weight", {3}, ones_init());
  var_weight = add_weight("var_weight", {3}, ones_init());
  moving_mean = add_weight("moving_mean", {channels_}, zeros_init(), false);
  moving_var = add_weight("moving_var", {channels_}, ones_init(), false);
}

Tensor SwitchNorm::forward(const Tensor& x) {
  expect(x.dim() == rank_ && x.shape().back() == channels_, "expected input of rank " + std::to_string(rank_) +
                                                                " with " + std::to_string(channels_) +
                                                                " channels, got " + x.shape().str());
  Axes batch_axes, spatial, layer_axes;
  for (int d = 0; d + 1 < rank_; ++d) batch_axes.push_back(d);
  for (int d = 1; d + 1 < rank_; ++d) spatial.push_back(d);
  for (int d = 1; d < rank_; ++d) layer_axes.push_back(d);
  Tensor bn_mean, bn_var;
  if (training()) {
    bn_mean = mean(x, batch_axes, true);
    bn_var = var(x, batch_axes, 0, true);
    NoGradGuard no_grad;
    Tensor m = reshape(bn_mean.detach(), {channels_}), v = reshape(bn_var.detach(), {channels_});
    const double decay = options_.decay;
    copy_(moving_mean, moving_mean * decay + m * (1 - decay));
    copy_(moving_var, moving_var * decay + v * (1 - decay));
  } else {
    bn_mean = moving_mean;
    bn_var = moving_var;
  }
  Tensor in_mean = mean(x, spatial, true), in_var = var(x, spatial, 0, true);
  Tensor ln_mean = mean(x, layer_axes, true), ln_var = var(x, layer_axes, 0, true);
  Tensor mw = softmax(mean_weight, 0), vw = softmax(var_weight, 0);
  Tensor mu = select(mw, 0, 0) * bn_mean + select(mw, 0, 1) * in_mean + select(mw, 0, 2) * ln_mean;
  Tensor sigma2 = select(vw, 0, 0) * bn_var + select(vw, 0, 1) * in_var + select(vw, 0, 2) * ln_var;
  return options_.act((x - mu) * rsqrt(sigma2 + options_.epsilon) * gamma + beta);
}

STRATA_DEFINE_OPTIONS(LocalResponseNormOptions, STRATA_LOCAL_RESPONSE_NORM_OPTIONS)
STRATA_LAYER("localresponsenorm", LocalResponseNorm);

STRATA_DEFINE_OPTIONS(SwitchNormOptions, STRATA_SWITCH_NORM_OPTIONS)
STRATA_LAYER("switchnorm", SwitchNorm);

}  // namespace strata::nn
