#include "strata/optim/clip.hpp"

#include <algorithm>
#include <cmath>

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/error.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"

namespace strata::optim {

namespace {
// sum(|g|^p) for finite p, max(|g|) for infinite p.
double norm_part(const Tensor& g, double p) {
  if (g.numel() == 0) return 0;
  if (std::isinf(p)) return amax(abs(g)).item<double>();
  if (p == 1) return sum(abs(g)).item<double>();
  if (p == 2) return sum(square(g)).item<double>();
  return sum(pow(abs(g), p)).item<double>();
}
}  // namespace

double clip_grad_norm(const std::vector<Tensor>& params, double max_norm, double norm_type) {
  STRATA_CHECK(max_norm >= 0, "clip_grad_norm: max_norm must be >= 0, got ", max_norm);
  STRATA_CHECK(norm_type > 0, "clip_grad_norm: norm_type must be > 0, got ", norm_type);
  NoGradGuard no_grad;
  std::vector<Tensor> grads;
  for (const Tensor& p : params)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return 0;

  double total = 0;
  for (const Tensor& g : grads) {
    double part = norm_part(g, norm_type);
    total = std::isinf(norm_type) ? std::max(total, part) : total + part;
  }
  if (!std::isinf(norm_type)) total = std::pow(total, 1 / norm_type);

  double coef = max_norm / (total + 1e-6);
  if (coef < 1)
    for (Tensor& g : grads) mul_(g, coef);
  return total;
}

void clip_grad_value(const std::vector<Tensor>& params, double clip) {
  STRATA_CHECK(clip >= 0, "clip_grad_value: clip must be >= 0, got ", clip);
  NoGradGuard no_grad;
  for (const Tensor& p : params) {
    Tensor g = p.grad();
    if (g.defined()) copy_(g, clamp(g, -clip, clip));
  }
}

}  // namespace strata::optim
