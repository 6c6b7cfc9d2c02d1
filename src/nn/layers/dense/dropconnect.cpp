#include "strata/nn/layers/dense.hpp"

#include "strata/nn/option_table.hpp"
#include "strata/ops/dropout.hpp"

namespace strata::nn {

DropconnectDense::DropconnectDense(Options options, std::string name)
    : Dense("dropconnectdense",
            DenseOptions{.units = options.units,
                         .act = options.act,
                         .in_units = -1,
                         .use_bias = options.use_bias,
                         .w_init = options.w_init,
                         .b_init = options.b_init},
            std::move(name)),
      options_(std::move(options)),
      gen_(options_.seed >= 0 ? std::make_unique<Generator>(static_cast<uint64_t>(options_.seed)) : nullptr) {
  check_options(options_, *this);
  expect(options_.keep > 0, "keep must be in (0, 1], got " + std::to_string(options_.keep));
}

DropconnectDense::DropconnectDense(int64_t units, double keep, Activation act, std::string name, int64_t seed,
                                   bool use_bias, Initializer w_init, Initializer b_init)
    : DropconnectDense(Options{.units = units,
                               .keep = keep,
                               .act = std::move(act),
                               .seed = seed,
                               .use_bias = use_bias,
                               .w_init = std::move(w_init),
                               .b_init = std::move(b_init)},
                       std::move(name)) {}

Tensor DropconnectDense::forward(const Tensor& x) {
  return apply(x, dropout(W, 1.0 - options_.keep, training() && options_.keep < 1.0, gen_.get()));
}

STRATA_DEFINE_OPTIONS(DropconnectDenseOptions, STRATA_DROPCONNECT_DENSE_OPTIONS)
STRATA_LAYER("dropconnectdense", DropconnectDense);

}  // namespace strata::nn
