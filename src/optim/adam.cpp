#include "strata/optim/adam.hpp"

#include <cmath>

#include "strata/core/dtype.hpp"
#include "strata/dispatch/optim.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::optim {

Adam::Adam(std::vector<Tensor> params, AdamOptions options) : Adam(std::move(params), options, "Adam", false) {}

Adam::Adam(std::vector<Tensor> params, AdamOptions options, std::string name, bool decoupled)
    : Optimizer(std::move(params), options.lr, std::move(name)), options_(options), decoupled_(decoupled) {
  check_range("beta1", options.beta1, 0, 1);
  check_range("beta2", options.beta2, 0, 1);
  check_range("eps", options.eps, 0, INFINITY);
  check_range("weight_decay", options.weight_decay, 0, INFINITY);
}

void Adam::update(Tensor& param, const Tensor& grad, ParamState& state) {
  const AdamOptions& o = options_;
  const double lr = learning_rate(), t = static_cast<double>(state.step);
  const dispatch::AdamStep s{o.beta1,
                             o.beta2,
                             o.eps,
                             decoupled_ ? 0 : o.weight_decay,
                             decoupled_ ? 1 - lr * o.weight_decay : 1,
                             lr / (1 - std::pow(o.beta1, t)),
                             std::sqrt(1 - std::pow(o.beta2, t))};

  // The kernel wants flat operands; the state buffers are made contiguous, a parameter or
  // gradient that is a strided view is worked on through a contiguous copy.
  Tensor p = param.is_contiguous() ? param : param.contiguous();
  Tensor g = grad.is_contiguous() && grad.dtype() == p.dtype() ? grad : grad.to(p.dtype()).contiguous();
  Tensor& m = buffer(state, "exp_avg", p);
  Tensor& v = buffer(state, "exp_avg_sq", p);
  Tensor* vmax = o.amsgrad ? &buffer(state, "max_exp_avg_sq", p) : nullptr;
  dispatch::adam_step(p, g, m, v, vmax, s);
  if (!p.is_same(param)) copy_(param, p);
}

AdamW::AdamW(std::vector<Tensor> params, AdamWOptions o)
    : Adam(std::move(params), AdamOptions{o.lr, o.beta1, o.beta2, o.eps, o.weight_decay, o.amsgrad}, "AdamW", true) {}

}  // namespace strata::optim
