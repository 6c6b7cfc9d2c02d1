#include "strata/nn/dropconnect.hpp"

#include "strata/nn/layer_config.hpp"
#include "strata/ops/dropout.hpp"

namespace strata::nn {

DropconnectDense::DropconnectDense(int64_t units, double keep, Activation act, std::string name, int64_t seed,
                                   bool use_bias, Initializer w_init, Initializer b_init)
    : Dense("dropconnectdense", units, std::move(act), std::move(name), -1, use_bias, std::move(w_init),
            std::move(b_init)),
      keep_(keep),
      seed_(seed),
      gen_(seed >= 0 ? std::make_unique<Generator>(static_cast<uint64_t>(seed)) : nullptr) {
  expect(keep > 0 && keep <= 1, "keep must be in (0, 1], got " + std::to_string(keep));
}

Tensor DropconnectDense::forward(const Tensor& x) {
  return apply(x, dropout(W, 1.0 - keep_, training() && keep_ < 1.0, gen_.get()));
}


// Dense's config less in_units, which this constructor does not take (it always infers them).
void DropconnectDense::get_config(nlohmann::json& c) const {
  Dense::get_config(c);
  c.erase("in_units");
  c["keep"] = keep_;
  c["seed"] = seed_;
}

STRATA_LAYER_CLASS("dropconnectdense", [](const nlohmann::json& c, const std::string& name) {
  return std::make_shared<DropconnectDense>(c.at("units").get<int64_t>(), c.at("keep").get<double>(),
                                            Activation(c.at("act").get<std::string>()), name,
                                            c.at("seed").get<int64_t>(), c.at("use_bias").get<bool>());
});

}  // namespace strata::nn
