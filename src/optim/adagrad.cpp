#include "strata/optim/adagrad.hpp"

#include <cmath>

#include "inplace.hpp"

namespace strata::optim {

Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions options)
    : Optimizer(std::move(params), options.lr, "Adagrad"), options_(options) {
  check_range("lr_decay", options.lr_decay, 0, INFINITY);
  check_range("weight_decay", options.weight_decay, 0, INFINITY);
  check_range("initial_accumulator_value", options.initial_accumulator_value, 0, INFINITY);
  check_range("eps", options.eps, 0, INFINITY);
}

void Adagrad::update(Tensor& param, const Tensor& grad, ParamState& state) {
  using namespace detail;
  const AdagradOptions& o = options_;
  Tensor g = l2_grad(grad, param, o.weight_decay);
  const double clr = learning_rate() / (1 + static_cast<double>(state.step - 1) * o.lr_decay);
  Tensor& sum = buffer(state, "sum", param, o.initial_accumulator_value);
  addcmul_(sum, g, g, 1);
  Tensor root = sqrt(sum);
  add_scalar_(root, o.eps);
  addcdiv_(param, g, root, -clr);
}

}  // namespace strata::optim
