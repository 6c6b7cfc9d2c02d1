#include "strata/nn/dense.hpp"

#include "strata/nn/layer_config.hpp"

#include "strata/ops/linalg.hpp"

namespace strata::nn {

Dense::Dense(int64_t units, Activation act, std::string name, int64_t in_units, bool use_bias, Initializer w_init,
             Initializer b_init)
    : Dense("dense", units, std::move(act), std::move(name), in_units, use_bias, std::move(w_init),
            std::move(b_init)) {}

Dense::Dense(std::string kind, int64_t units, Activation act, std::string name, int64_t in_units, bool use_bias,
             Initializer w_init, Initializer b_init)
    : Layer(std::move(kind), std::move(name)), units_(units), in_units_(in_units), act_(std::move(act)), use_bias_(use_bias),
      w_init_(std::move(w_init)), b_init_(std::move(b_init)) {
  expect(units > 0, "units must be positive, got " + std::to_string(units));
}

void Dense::build(const Shape& s) {
  expect(s.size() >= 1, "expects inputs of shape [..., features], got " + s.str());
  expect(in_units_ < 0 || s.back() == in_units_,
         "was declared with in_units " + std::to_string(in_units_) + " but got input of shape " + s.str());
  in_units_ = s.back();
  W = add_weight("W", {in_units_, units_}, w_init_);
  if (use_bias_) b = add_weight("b", {units_}, b_init_);
}

Tensor Dense::forward(const Tensor& x) { return apply(x, W); }

Tensor Dense::apply(const Tensor& x, const Tensor& weight) {
  expect(x.dim() >= 1 && x.shape().back() == in_units_,
         "expected input of shape [..., " + std::to_string(in_units_) + "], got " + x.shape().str());
  return act_(linear(x, weight, b));
}

using nlohmann::json;


void Dense::get_config(json& c) const {
  c = {{"units", units_}, {"act", activation_name(act_, *this)}, {"in_units", in_units_}, {"use_bias", use_bias_}};
}

STRATA_LAYER_CLASS("dense", [](const json& c, const std::string& name) {
  return std::make_shared<Dense>(c.at("units").get<int64_t>(), Activation(c.at("act").get<std::string>()), name,
                                 c.at("in_units").get<int64_t>(), c.at("use_bias").get<bool>());
});

}  // namespace strata::nn
