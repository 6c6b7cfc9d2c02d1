#include "strata/dist/sync_batch_norm.hpp"

#include "strata/autograd/grad_mode.hpp"
#include "strata/autograd/node.hpp"
#include "strata/dist/collectives.hpp"
#include "strata/nn/option_table.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/normalization.hpp"
#include "strata/ops/reduce.hpp"

namespace strata::dist {

Tensor all_reduce_sum(const Tensor& t) {
  Tensor out = t.detach().contiguous().clone();
  all_reduce(out);
  if (autograd::needs_grad({&t}))
    autograd::record({"dist_all_reduce_sum", false}, {t}, {out}, [](const std::vector<Tensor>& g) {
      Tensor summed = g[0].contiguous().clone();
      all_reduce(summed);
      return std::vector<Tensor>{summed};
    });
  return out;
}

SyncBatchNorm::SyncBatchNorm(Options options, std::string name)
    : nn::Layer("sync_batchnorm", std::move(name)), options_(std::move(options)) {
  nn::check_options(options_, *this);
}

SyncBatchNorm::SyncBatchNorm(double decay, double epsilon, nn::Activation act, std::string name)
    : SyncBatchNorm(Options{.decay = decay, .epsilon = epsilon, .act = std::move(act)}, std::move(name)) {}

void SyncBatchNorm::build(const Shape& s) {
  expect(s.size() >= 2, "expected an input [N, ..., C], got " + s.str());
  const Shape c{s.back()};
  beta = add_weight("beta", c, nn::zeros_init());
  gamma = add_weight("gamma", c, nn::ones_init());
  moving_mean = add_weight("moving_mean", c, nn::zeros_init(), /*trainable=*/false);
  moving_var = add_weight("moving_var", c, nn::ones_init(), /*trainable=*/false);
}

Tensor SyncBatchNorm::forward(const Tensor& x) {
  const int64_t channels = gamma.size(0);
  const double decay = options_.decay, epsilon = options_.epsilon;
  const nn::Activation& act = options_.act;
  expect(x.dim() >= 2 && x.size(-1) == channels,
         "expected an input [N, ..., " + std::to_string(channels) + "], got " + x.shape().str());
  if (!training()) return act(batch_norm(x, gamma, beta, moving_mean, moving_var, false, 1 - decay, epsilon));
  // The global sums of x and x², and the global count, in one reduction.
  const Tensor rows = x.reshape({-1, channels});
  const Tensor count = full({1}, static_cast<double>(rows.size(0)), x.dtype());
  const Tensor sums = all_reduce_sum(concat({sum(rows, {0}), sum(rows * rows, {0}), count}, 0));
  const double n = sums.narrow(0, 2 * channels, 1).item<double>();
  expect(n > 1, "needs more than one value per channel over all processes");
  const Tensor mean = sums.narrow(0, 0, channels) / n;
  const Tensor var = sums.narrow(0, channels, channels) / n - mean * mean;  // biased, as normalisation uses
  {
    NoGradGuard no_grad;  // moving statistics: PyTorch's rule, unbiased variance
    Tensor new_mean = moving_mean * decay + mean.detach() * (1 - decay);
    Tensor new_var = moving_var * decay + var.detach() * (n / (n - 1) * (1 - decay));
    copy_(moving_mean, new_mean);
    copy_(moving_var, new_var);
  }
  return act((x - mean) * rsqrt(var + epsilon) * gamma + beta);
}

}  // namespace strata::dist

namespace strata::nn {

STRATA_DEFINE_OPTIONS(dist::SyncBatchNormOptions, STRATA_SYNC_BATCH_NORM_OPTIONS)
STRATA_LAYER("sync_batchnorm", dist::SyncBatchNorm);

}  // namespace strata::nn
