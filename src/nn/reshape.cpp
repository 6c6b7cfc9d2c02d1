#include "strata/nn/reshape.hpp"

#include "strata/nn/layer_config.hpp"

#include "strata/ops/shape.hpp"

namespace strata::nn {

Tensor Flatten::forward(const Tensor& x) {
  expect(x.dim() >= 1, "expects a batch axis, got a scalar");
  return x.dim() == 1 ? reshape(x, {x.size(0), 1}) : flatten(x, 1);
}

Tensor Reshape::forward(const Tensor& x) {
  Shape target{x.size(0)};
  for (int64_t d : shape_) target.push_back(d);
  return reshape(x, target);
}

using nlohmann::json;


void Reshape::get_config(json& c) const { c = {{"shape", std::vector<int64_t>(shape_.begin(), shape_.end())}}; }

STRATA_LAYER_CLASS("flatten", [](const json&, const std::string& name) { return std::make_shared<Flatten>(name); });
STRATA_LAYER_CLASS("reshape", [](const json& c, const std::string& name) {
  return std::make_shared<Reshape>(Shape(dims_of(c.at("shape"))), name);
});

}  // namespace strata::nn
