#include "strata/nn/weight_wrappers.hpp"

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"
#include "scoped_assign.hpp"

namespace strata::nn {
namespace {

// W as a matrix [inputs, outputs].
Tensor as_matrix(const Tensor& w) { return reshape(w, {-1, w.shape().back()}); }

Axes input_axes(const Tensor& w) {
  Axes axes;
  for (int d = 0; d + 1 < w.dim(); ++d) axes.push_back(d);
  return axes;
}

}  // namespace

WeightWrapper::WeightWrapper(std::string kind, Layer& layer, Tensor& weight, std::string name)
    : Layer(std::move(kind), std::move(name)), layer_(&layer), weight_(&weight) {}

Tensor WeightWrapper::forward(const Tensor& x) {
  if (!prepared_) {
    if (!layer_->built()) {
      NoGradGuard no_grad;
      (*layer_)(x);  // builds the weights from x's shape
    }
    expect(weight_->defined() && weight_->dim() >= 1,
           "the wrapped layer " + layer_->name() + " has no such weight after its first call");
    prepare();
    prepared_ = true;
  }
  Tensor v = *weight_;
  ScopedAssign<Tensor> swap(*weight_, reparametrise(v));
  return (*layer_)(x);
}

SpectralNorm::SpectralNorm(Layer& layer, Tensor& weight, int n_power_iterations, double eps, std::string name)
    : WeightWrapper("spectralnorm", layer, weight, std::move(name)), n_power_iterations_(n_power_iterations),
      eps_(eps) {
  expect(n_power_iterations >= 0, "n_power_iterations must be non-negative, got " + std::to_string(n_power_iterations));
}

void SpectralNorm::prepare() {
  const Tensor& w = weight();
  u = add_weight(
      "u", {w.shape().back()},
      [&](const Shape& s, Generator* gen) {
        Tensor r = randn(s, w.dtype(), gen);
        return r / norm(r);
      },
      false);
}

Tensor SpectralNorm::sigma() const {
  Tensor m = as_matrix(weight());
  Tensor mu = sum(m * u.detach(), {1});  // W u [inputs]
  Tensor v = (mu / (norm(mu) + eps_)).detach();
  return sum(v * mu);  // v^T W u
}

Tensor SpectralNorm::reparametrise(const Tensor& w) {
  if (training() && !w.is_meta()) {
    NoGradGuard no_grad;
    Tensor m = as_matrix(w.detach()), uu = u;
    for (int i = 0; i < n_power_iterations_; ++i) {
      Tensor v = sum(m * uu, {1});
      v = v / (norm(v) + eps_);
      uu = sum(m * unsqueeze(v, 1), {0});
      uu = uu / (norm(uu) + eps_);
    }
    copy_(u, uu);
  }
  return w / sigma();
}

WeightNorm::WeightNorm(Layer& layer, Tensor& weight, std::string name)
    : WeightWrapper("weightnorm", layer, weight, std::move(name)) {}

void WeightNorm::prepare() {
  const Tensor& v = weight();
  g = add_weight("g", {v.shape().back()}, [&](const Shape&, Generator*) {
    NoGradGuard no_grad;
    return clone(norm(v.detach(), 2, input_axes(v)));
  });
}

Tensor WeightNorm::reparametrise(const Tensor& v) { return v * (g / norm(v, 2, input_axes(v))); }

}  // namespace strata::nn
