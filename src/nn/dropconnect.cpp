#include "strata/nn/dropconnect.hpp"

#include "strata/ops/dropout.hpp"

namespace strata::nn {

DropconnectDense::DropconnectDense(int64_t units, double keep, Activation act, std::string name, int64_t seed,
                                   bool use_bias, Initializer w_init, Initializer b_init)
    : Dense("dropconnectdense", units, std::move(act), std::move(name), -1, use_bias, std::move(w_init),
            std::move(b_init)),
      keep_(keep),
      gen_(seed >= 0 ? std::make_unique<Generator>(static_cast<uint64_t>(seed)) : nullptr) {
  expect(keep > 0 && keep <= 1, "keep must be in (0, 1], got " + std::to_string(keep));
}

Tensor DropconnectDense::forward(const Tensor& x) {
  return apply(x, dropout(W, 1.0 - keep_, training() && keep_ < 1.0, gen_.get()));
}

}  // namespace strata::nn
