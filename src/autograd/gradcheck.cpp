#include "strata/autograd/gradcheck.hpp"

#include <cmath>

#include "strata/autograd/grad_mode.hpp"
#include "strata/autograd/node.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata::autograd {

GradcheckResult gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& inputs,
                          double eps, double tolerance) {
  GradcheckResult result;
  std::vector<Tensor> wrt;
  for (const Tensor& t : inputs)
    if (t.requires_grad()) wrt.push_back(t);
  if (wrt.empty()) return result;
  Tensor y = f(inputs);
  // An output with no history is constant in the inputs: its gradient is zero, which the finite
  // differences below confirm or refute (a second derivative of a linear op is such a case).
  std::vector<Tensor> analytic;
  if (y.requires_grad()) analytic = grad({sum(y)}, wrt);
  else
    for (const Tensor& t : wrt) analytic.push_back(zeros(t.shape(), kFloat64));

  auto value_at = [&](const std::vector<Tensor>& probe) {
    NoGradGuard no_grad;
    return sum(cast(f(probe), kFloat64)).item<double>();
  };
  size_t k = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].requires_grad()) continue;
    std::vector<double> got = cast(analytic[k++], kFloat64).to_vector<double>();
    // Perturb a contiguous float64 copy element by element; other inputs stay as they are.
    Tensor base = clone(cast(inputs[i].detach(), kFloat64));
    double* p = base.data<double>();
    std::vector<Tensor> probe = inputs;
    probe[i] = inputs[i].dtype() == kFloat64 ? base : Tensor();
    for (int64_t j = 0; j < base.numel(); ++j) {
      const double orig = p[j];
      p[j] = orig + eps;
      if (inputs[i].dtype() != kFloat64) probe[i] = cast(base, inputs[i].dtype());
      double up = value_at(probe);
      p[j] = orig - eps;
      if (inputs[i].dtype() != kFloat64) probe[i] = cast(base, inputs[i].dtype());
      double down = value_at(probe);
      p[j] = orig;
      double numeric = (up - down) / (2 * eps);
      double err = std::abs(got[j] - numeric) / std::max(1.0, std::abs(numeric));
      result.max_error = std::max(result.max_error, err);
      if (!(err <= tolerance) && result.ok) {
        result.ok = false;
        result.message = "input " + std::to_string(i) + " element " + std::to_string(j) + ": autograd " +
                         std::to_string(got[j]) + ", finite difference " + std::to_string(numeric);
      }
    }
  }
  return result;
}

GradcheckResult gradgradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                              const std::vector<Tensor>& inputs, double eps, double tolerance) {
  Generator weights(7);
  Tensor v;
  {
    NoGradGuard no_grad;
    v = uniform(f(inputs).shape(), 0.5, 1.5, kFloat64, &weights);
  }
  std::vector<Tensor> u;
  for (const Tensor& t : inputs)
    if (t.requires_grad()) u.push_back(uniform(t.shape(), 0.5, 1.5, kFloat64, &weights));

  // gradcheck differentiates h with grad mode on (then the first gradient is taken with
  // create_graph, differentiable w.r.t. `inputs`) and evaluates it under NoGradGuard for the
  // finite differences (then plain first-order gradients of fresh leaves suffice).
  auto h = [&](const std::vector<Tensor>& in) {
    const bool create_graph = grad_enabled();
    GradModeGuard on(true);
    std::vector<Tensor> leaves = in, wrt;
    for (size_t i = 0; i < in.size(); ++i) {
      if (!inputs[i].requires_grad()) continue;
      if (!leaves[i].requires_grad()) leaves[i] = leaves[i].detach().requires_grad_();
      wrt.push_back(leaves[i]);
    }
    Tensor y = f(leaves);
    Tensor total = zeros({}, kFloat64);
    if (!y.requires_grad()) return total;
    std::vector<Tensor> grads = grad({sum(cast(y, kFloat64) * v)}, wrt, {}, false, create_graph);
    for (size_t k = 0; k < grads.size(); ++k) total = total + sum(cast(grads[k], kFloat64) * u[k]);
    return total;
  };
  return gradcheck(h, inputs, eps, tolerance);
}

}  // namespace strata::autograd
