#include "strata/optim/adadelta.hpp"

#include <cmath>

#include "inplace.hpp"

namespace strata::optim {

Adadelta::Adadelta(std::vector<Tensor> params, AdadeltaOptions options)
    : Optimizer(std::move(params), options.lr, "Adadelta"), options_(options) {
  check_range("rho", options.rho, 0, 1, true);
  check_range("eps", options.eps, 0, INFINITY);
  check_range("weight_decay", options.weight_decay, 0, INFINITY);
}

void Adadelta::update(Tensor& param, const Tensor& grad, ParamState& state) {
  using namespace detail;
  const AdadeltaOptions& o = options_;
  Tensor g = l2_grad(grad, param, o.weight_decay);
  Tensor& square_avg = buffer(state, "square_avg", param);
  Tensor& acc_delta = buffer(state, "acc_delta", param);
  mul_(square_avg, o.rho);
  addcmul_(square_avg, g, g, 1 - o.rho);
  Tensor root = sqrt(square_avg + o.eps);
  Tensor delta = sqrt(acc_delta + o.eps);
  div_(delta, root);
  mul_(delta, g);
  mul_(acc_delta, o.rho);
  addcmul_(acc_delta, delta, delta, 1 - o.rho);
  add_(param, delta, -learning_rate());
}

}  // namespace strata::optim
