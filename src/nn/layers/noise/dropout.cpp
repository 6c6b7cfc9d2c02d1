#include "strata/nn/layers/noise.hpp"

#include "strata/nn/option_table.hpp"

#include "strata/ops/dropout.hpp"

namespace strata::nn {

Dropout::Dropout(Options options, std::string name) : Layer("dropout", std::move(name)), options_(options) {
  check_options(options_, *this);
  // The rule's [0, 1] and, beyond it, p = 1 (which would scale the survivors by 1 / 0).
  expect(options_.p < 1, "p must be in [0, 1), got " + std::to_string(options_.p));
}

Dropout::Dropout(double p, std::string name) : Dropout(Options{.p = p}, std::move(name)) {}

Tensor Dropout::forward(const Tensor& x) { return strata::dropout(x, options_.p, training()); }

STRATA_DEFINE_OPTIONS(DropoutOptions, STRATA_DROPOUT_OPTIONS)
STRATA_LAYER("dropout", Dropout);

}  // namespace strata::nn
