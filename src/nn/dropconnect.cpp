#include "strata/nn/dropconnect.hpp"

#include "strata/ops/dropout.hpp"
#include "strata/ops/linalg.hpp"

namespace strata::nn {

DropconnectDense::DropconnectDense(int64_t units, double keep, Activation act, std::string name, int64_t seed,
                                   bool use_bias, Initializer w_init, Initializer b_init)
    : Layer("dropconnectdense", std::move(name)), units_(units), keep_(keep), act_(std::move(act)),
      gen_(seed >= 0 ? std::make_unique<Generator>(static_cast<uint64_t>(seed)) : nullptr), use_bias_(use_bias),
      w_init_(std::move(w_init)), b_init_(std::move(b_init)) {
  expect(units > 0, "units must be positive, got " + std::to_string(units));
  expect(keep > 0 && keep <= 1, "keep must be in (0, 1], got " + std::to_string(keep));
}

void DropconnectDense::build(const Shape& s) {
  expect(s.size() >= 1, "expects inputs of shape [..., features], got " + s.str());
  in_units_ = s.back();
  W = add_weight("W", {in_units_, units_}, w_init_);
  if (use_bias_) b = add_weight("b", {units_}, b_init_);
}

Tensor DropconnectDense::forward(const Tensor& x) {
  expect(x.dim() >= 1 && x.shape().back() == in_units_,
         "expected input of shape [..., " + std::to_string(in_units_) + "], got " + x.shape().str());
  return act_(linear(x, dropout(W, 1.0 - keep_, training() && keep_ < 1.0, gen_.get()), b));
}

}  // namespace strata::nn
