// batch_norm and layer_norm: one fused kernel forward and one backward each (norm_kernels).
#include "strata/ops/normalization.hpp"

#include <cmath>

#include "ops/op_common.hpp"
#include "strata/dispatch/elementwise.hpp"
#include "strata/dispatch/norm.hpp"

namespace strata {
namespace {

void check_param(const char* op, const char* name, const Tensor& p, const Shape& shape, const Tensor& x) {
  if (!p.defined()) return;
  STRATA_CHECK(p.shape() == shape, op, ": ", name, " must have shape ", shape.str(), ", got ", p.shape().str());
  STRATA_CHECK(p.dtype() == x.dtype(), op, ": ", name, " must have the input's dtype ", dtype_name(x.dtype()),
               ", got ", dtype_name(p.dtype()));
}

std::vector<double> values_of(const Tensor& t) { return t.to_vector<double>(); }

// running = (1 - momentum) * running + momentum * batch, in place on running's device (running
// may be strided).
void update_running(const Tensor& running, const std::vector<double>& batch, double momentum) {
  Tensor r = running;
  const Tensor b = from_vector(batch, {static_cast<int64_t>(batch.size())}, running.device());
  dispatch::binary_inplace(dispatch::BinaryOp::mul, r, scalar_tensor(1 - momentum, {kFloat64, running.device()}));
  dispatch::add_scaled_inplace(r, b, momentum);
}

}  // namespace

Tensor batch_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum, double eps) {
  const char* op = "batch_norm";
  ops::check_defined(x, op);
  ops::check_floating(x, op);
  STRATA_CHECK(x.dim() >= 2, op, ": expected input [..., C] with a batch axis and channels last, got shape ",
               x.shape().str());
  const int64_t C = x.shape().back(), M = x.numel() / std::max<int64_t>(C, 1);
  const Shape ch{C};
  check_param(op, "gamma", gamma, ch, x);
  check_param(op, "beta", beta, ch, x);
  check_param(op, "running_mean", running_mean, ch, x);
  check_param(op, "running_var", running_var, ch, x);
  STRATA_CHECK(running_mean.defined() == running_var.defined(), op,
               ": running_mean and running_var must be both defined or both undefined");
  STRATA_CHECK(momentum >= 0 && momentum <= 1, op, ": momentum must be in [0, 1], got ", momentum);
  STRATA_CHECK(eps >= 0, op, ": eps must be non-negative, got ", eps);

  const bool batch_stats = training || !running_mean.defined();
  std::vector<double> mean, var;
  if (batch_stats) {
    STRATA_CHECK(M > 1 || !training, op, ": expected more than one value per channel in training, got input shape ",
                 x.shape().str());
    dispatch::ChannelStats st = dispatch::channel_mean_var(x);
    mean = std::move(st.mean);
    var = std::move(st.var);
    if (training && running_mean.defined()) {
      std::vector<double> unbiased(var);
      for (double& v : unbiased) v *= static_cast<double>(M) / static_cast<double>(M - 1);
      update_running(running_mean, mean, momentum);
      update_running(running_var, unbiased, momentum);
    }
  } else {
    mean = values_of(running_mean);
    var = values_of(running_var);
  }
  std::vector<double> invstd(C);
  for (int64_t c = 0; c < C; ++c) invstd[c] = 1.0 / std::sqrt(var[c] + eps);

  Tensor y = dispatch::batch_norm_apply(x, mean, invstd, gamma, beta);
  if (autograd::needs_grad({&x, &gamma, &beta}))
    ops::record(
        ops::Op::batch_norm, {x, gamma, beta}, {y}, [x, gamma, beta, mean, invstd, batch_stats](const ops::Grads& g) {
          auto d = dispatch::batch_norm_backward(g[0], x, mean, invstd, gamma, batch_stats, x.requires_grad(),
                                                     gamma.defined() && gamma.requires_grad(),
                                                     beta.defined() && beta.requires_grad());
          return ops::Grads{d.x, d.gamma, d.beta};
        });
  return y;
}

Tensor layer_norm(const Tensor& x, const std::vector<int64_t>& normalized_shape, const Tensor& gamma,
                  const Tensor& beta, double eps) {
  const char* op = "layer_norm";
  ops::check_defined(x, op);
  ops::check_floating(x, op);
  const Shape ns(normalized_shape);
  const int k = ns.size();
  STRATA_CHECK(k >= 1, op, ": normalized_shape must name at least one axis");
  bool trailing = x.dim() >= k;
  for (int i = 0; trailing && i < k; ++i) trailing = x.shape()[x.dim() - k + i] == ns[i];
  STRATA_CHECK(trailing, op, ": normalized_shape ", ns.str(), " must equal the last ", k, " sizes of the input ",
               x.shape().str());
  check_param(op, "gamma", gamma, ns, x);
  check_param(op, "beta", beta, ns, x);
  STRATA_CHECK(eps >= 0, op, ": eps must be non-negative, got ", eps);

  const int64_t n = ns.numel();
  dispatch::LayerNormOut out = dispatch::layer_norm_forward(x, n, gamma, beta, eps);
  if (autograd::needs_grad({&x, &gamma, &beta}))
    ops::record(ops::Op::layer_norm, {x, gamma, beta}, {out.y},
                     [x, gamma, beta, n, mean = out.mean, rstd = out.rstd](const ops::Grads& g) {
                       auto d = dispatch::layer_norm_backward(g[0], x, n, mean, rstd, gamma, x.requires_grad(),
                                                                  gamma.defined() && gamma.requires_grad(),
                                                                  beta.defined() && beta.requires_grad());
                       // The kernel's parameter gradients are flat [n].
                       auto shaped = [](const Tensor& grad, const Tensor& like) {
                         return grad.defined() ? grad.as_strided(like.shape(), contiguous_strides(like.shape()), 0)
                                               : grad;
                       };
                       return ops::Grads{d.x, shaped(d.gamma, gamma), shaped(d.beta, beta)};
                     });
  return out.y;
}

}  // namespace strata
