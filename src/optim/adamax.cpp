#include "strata/optim/adamax.hpp"

#include <cmath>

#include "inplace.hpp"

namespace strata::optim {

Adamax::Adamax(std::vector<Tensor> params, AdamaxOptions options)
    : Optimizer(std::move(params), options.lr, "Adamax"), options_(options) {
  check_range("beta1", options.beta1, 0, 1);
  check_range("beta2", options.beta2, 0, 1);
  check_range("eps", options.eps, 0, INFINITY);
  check_range("weight_decay", options.weight_decay, 0, INFINITY);
}

void Adamax::update(Tensor& param, const Tensor& grad, ParamState& state) {
  using namespace detail;
  const AdamaxOptions& o = options_;
  Tensor g = l2_grad(grad, param, o.weight_decay);
  Tensor& exp_avg = buffer(state, "exp_avg", param);
  Tensor& exp_inf = buffer(state, "exp_inf", param);
  lerp_(exp_avg, g, 1 - o.beta1);
  mul_(exp_inf, o.beta2);
  Tensor bound = abs(g);
  maximum_(exp_inf, add_scalar_(bound, o.eps));
  const double bias_correction = 1 - std::pow(o.beta1, static_cast<double>(state.step));
  addcdiv_(param, exp_avg, exp_inf, -learning_rate() / bias_correction);
}

}  // namespace strata::optim
