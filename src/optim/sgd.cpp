#include "strata/optim/sgd.hpp"

#include <cmath>

#include "strata/core/error.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::optim {

SGD::SGD(std::vector<Tensor> params, SGDOptions options)
    : Optimizer(std::move(params), options.lr, "SGD"), options_(options) {
  check_range("momentum", options.momentum, 0, INFINITY);
  check_range("dampening", options.dampening, 0, 1, true);
  check_range("weight_decay", options.weight_decay, 0, INFINITY);
  STRATA_CHECK(!options.nesterov || (options.momentum > 0 && options.dampening == 0),
               "SGD: nesterov needs momentum > 0 and dampening 0, got momentum ", options.momentum,
               " and dampening ", options.dampening);
}

void SGD::update(Tensor& param, const Tensor& grad, ParamState& state) {
  Tensor d = l2_grad(grad, param, options_.weight_decay);
  if (options_.momentum != 0) {
    auto it = state.buffers.find("momentum_buffer");
    if (it == state.buffers.end()) {
      it = state.buffers.emplace("momentum_buffer", d.clone()).first;  // PyTorch: no dampening at first
    } else {
      mul_(it->second, options_.momentum);
      add_(it->second, d, 1 - options_.dampening);
    }
    const Tensor& buf = it->second;
    if (options_.nesterov) {
      Tensor n = d.clone();
      d = add_(n, buf, options_.momentum);
    } else {
      d = buf;
    }
  }
  add_(param, d, -learning_rate());
}

}  // namespace strata::optim
