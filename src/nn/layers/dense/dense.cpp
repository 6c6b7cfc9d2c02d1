#include "strata/nn/layers/dense.hpp"

#include "strata/nn/option_table.hpp"

#include "strata/ops/linalg.hpp"

namespace strata::nn {

Dense::Dense(Options options, std::string name) : Dense("dense", std::move(options), std::move(name)) {}

Dense::Dense(int64_t units, Activation act, std::string name, int64_t in_units, bool use_bias, Initializer w_init,
             Initializer b_init)
    : Dense(Options{.units = units,
                    .act = std::move(act),
                    .in_units = in_units,
                    .use_bias = use_bias,
                    .w_init = std::move(w_init),
                    .b_init = std::move(b_init)},
            std::move(name)) {}

Dense::Dense(std::string kind, Options options, std::string name)
    : Layer(std::move(kind), std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

void Dense::build(const Shape& s) {
  expect(s.size() >= 1, "expects inputs of shape [..., features], got " + s.str());
  expect(options_.in_units < 0 || s.back() == options_.in_units,
         "was declared with in_units " + std::to_string(options_.in_units) + " but got input of shape " + s.str());
  options_.in_units = s.back();
  W = add_weight("W", {options_.in_units, options_.units}, options_.w_init);
  if (options_.use_bias) b = add_weight("b", {options_.units}, options_.b_init);
}

Tensor Dense::forward(const Tensor& x) { return apply(x, W); }

Tensor Dense::apply(const Tensor& x, const Tensor& weight) {
  expect(x.dim() >= 1 && x.shape().back() == options_.in_units,
         "expected input of shape [..., " + std::to_string(options_.in_units) + "], got " + x.shape().str());
  return options_.act(linear(x, weight, b));
}

STRATA_DEFINE_OPTIONS(DenseOptions, STRATA_DENSE_OPTIONS)
STRATA_LAYER("dense", Dense);

}  // namespace strata::nn
