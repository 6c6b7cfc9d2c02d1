#include "strata/nn/layers/shape.hpp"

#include "strata/nn/option_table.hpp"

#include "strata/ops/shape.hpp"

namespace strata::nn {

Flatten::Flatten(Options options, std::string name) : Layer("flatten", std::move(name)), options_(options) {
  check_options(options_, *this);
}

Tensor Flatten::forward(const Tensor& x) {
  expect(x.dim() >= 1, "expects a batch axis, got a scalar");
  return x.dim() == 1 ? reshape(x, {x.size(0), 1}) : flatten(x, 1);
}

Reshape::Reshape(Options options, std::string name) : Layer("reshape", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

Tensor Reshape::forward(const Tensor& x) {
  Shape target{x.size(0)};
  for (int64_t d : options_.shape) target.push_back(d);
  return reshape(x, target);
}

STRATA_DEFINE_OPTIONS(FlattenOptions, STRATA_FLATTEN_OPTIONS)
STRATA_DEFINE_OPTIONS(ReshapeOptions, STRATA_RESHAPE_OPTIONS)
STRATA_LAYER("flatten", Flatten);
STRATA_LAYER("reshape", Reshape);

}  // namespace strata::nn
