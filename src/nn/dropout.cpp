#include "strata/nn/dropout.hpp"

#include "strata/ops/dropout.hpp"

namespace strata::nn {

Dropout::Dropout(double p, std::string name) : Layer("dropout", std::move(name)), p_(p) {
  expect(p >= 0 && p < 1, "p must be in [0, 1), got " + std::to_string(p));
}

Tensor Dropout::forward(const Tensor& x) { return strata::dropout(x, p_, training()); }

}  // namespace strata::nn
