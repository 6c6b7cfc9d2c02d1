#include "strata/nn/sequential.hpp"

#include "strata/nn/option_table.hpp"

namespace strata::nn {

Sequential::Sequential(Options options, std::string name)
    : Layer("sequential", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
  for (auto& l : options_.layers) expect(l != nullptr, "a layer in the list is null");
}

Sequential& Sequential::add(std::shared_ptr<Layer> layer) {
  expect(layer != nullptr, "cannot add a null layer");
  options_.layers.push_back(std::move(layer));
  return *this;
}

Tensor Sequential::forward(const Tensor& x) {
  Tensor h = x;
  for (auto& l : options_.layers) h = (*l)(h);
  return h;
}

STRATA_DEFINE_OPTIONS(SequentialOptions, STRATA_SEQUENTIAL_OPTIONS)
STRATA_LAYER("sequential", Sequential);

}  // namespace strata::nn
