#include "strata/autograd/gradcheck.hpp"

#include <cmath>

#include "strata/autograd/grad_mode.hpp"
#include "strata/autograd/node.hpp"
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
  STRATA_CHECK(y.requires_grad(), "gradcheck: the function's output does not depend on any input requiring grad");
  std::vector<Tensor> analytic = grad({sum(y)}, wrt);

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

}  // namespace strata::autograd
