#include "strata/nn/dropout.hpp"

#include "strata/nn/layer_config.hpp"

#include "strata/ops/dropout.hpp"

namespace strata::nn {

Dropout::Dropout(double p, std::string name) : Layer("dropout", std::move(name)), p_(p) {
  expect(p >= 0 && p < 1, "p must be in [0, 1), got " + std::to_string(p));
}

Tensor Dropout::forward(const Tensor& x) { return strata::dropout(x, p_, training()); }

using nlohmann::json;


void Dropout::get_config(json& c) const { c = {{"p", p_}}; }

STRATA_LAYER_CLASS("dropout", [](const json& c, const std::string& name) {
  return std::make_shared<Dropout>(c.at("p").get<double>(), name);
});

}  // namespace strata::nn
