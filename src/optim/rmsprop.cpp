#include "strata/optim/rmsprop.hpp"

#include <cmath>

#include "inplace.hpp"

namespace strata::optim {

RMSprop::RMSprop(std::vector<Tensor> params, RMSpropOptions options)
    : Optimizer(std::move(params), options.lr, "RMSprop"), options_(options) {
  check_range("alpha", options.alpha, 0, 1, true);
  check_range("eps", options.eps, 0, INFINITY);
  check_range("momentum", options.momentum, 0, INFINITY);
  check_range("weight_decay", options.weight_decay, 0, INFINITY);
}

void RMSprop::update(Tensor& param, const Tensor& grad, ParamState& state) {
  using namespace detail;
  const RMSpropOptions& o = options_;
  Tensor g = l2_grad(grad, param, o.weight_decay);
  Tensor& square_avg = buffer(state, "square_avg", param);
  mul_(square_avg, o.alpha);
  addcmul_(square_avg, g, g, 1 - o.alpha);

  Tensor avg;
  if (o.centered) {
    Tensor& grad_avg = buffer(state, "grad_avg", param);
    lerp_(grad_avg, g, 1 - o.alpha);
    avg = square_avg.clone();
    addcmul_(avg, grad_avg, grad_avg, -1);
    avg = sqrt(avg);
  } else {
    avg = sqrt(square_avg);
  }
  add_scalar_(avg, o.eps);

  if (o.momentum > 0) {
    Tensor& buf = buffer(state, "momentum_buffer", param);
    mul_(buf, o.momentum);
    addcdiv_(buf, g, avg, 1);
    add_(param, buf, -learning_rate());
  } else {
    addcdiv_(param, g, avg, -learning_rate());
  }
}

}  // namespace strata::optim
