#include "strata/nn/layers/shape.hpp"

#include <string>

#include "strata/nn/option_table.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {

Slice::Slice(Options options, std::string name) : Layer("slice", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

Tensor Slice::forward(const Tensor& x) {
  const int64_t axis = options_.axis < 0 ? options_.axis + x.dim() : options_.axis;
  expect(axis >= 1 && axis < x.dim(),
         "axis " + std::to_string(options_.axis) + " is out of range (or the batch axis) for input " + x.shape().str());
  expect(options_.begin < options_.end && options_.end <= x.size(axis),
         "range [" + std::to_string(options_.begin) + ", " + std::to_string(options_.end) + ") does not fit axis " +
             std::to_string(axis) + " of input " + x.shape().str());
  return slice(x, axis, options_.begin, options_.end);
}

STRATA_DEFINE_OPTIONS(SliceOptions, STRATA_SLICE_OPTIONS)
STRATA_LAYER("slice", Slice);

}  // namespace strata::nn
