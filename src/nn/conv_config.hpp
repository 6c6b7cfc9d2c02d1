// Configs of the convolution layers, shared by their .cpp files: most convolutions take
// (n_filter, filter_size, act, options, name, in_channels, use_bias), and the separable ones add
// a depth multiplier after the options, so one writer and one factory serve each family.
#pragma once
#include <memory>
#include <string>

#include "strata/nn/layer_config.hpp"

namespace strata::nn::detail {

inline nlohmann::json conv_config(int64_t n_filter, const SpatialSizes& filter_size, const Activation& act,
                                  const ConvOptions& options, int64_t in_channels, bool use_bias, const Layer& owner) {
  return {{"n_filter", n_filter},   {"filter_size", filter_size},       {"act", activation_name(act, owner)},
          {"options", conv_options_config(options)}, {"in_channels", in_channels}, {"use_bias", use_bias}};
}

template <class L>
std::shared_ptr<Layer> conv_from_config(const nlohmann::json& c, const std::string& name) {
  return std::make_shared<L>(c.at("n_filter").get<int64_t>(), dims_of(c.at("filter_size")),
                             Activation(c.at("act").get<std::string>()), conv_options_from(c.at("options")), name,
                             c.at("in_channels").get<int64_t>(), c.at("use_bias").get<bool>());
}

template <class L>
std::shared_ptr<Layer> separable_conv_from_config(const nlohmann::json& c, const std::string& name) {
  return std::make_shared<L>(c.at("n_filter").get<int64_t>(), dims_of(c.at("filter_size")),
                             Activation(c.at("act").get<std::string>()), conv_options_from(c.at("options")),
                             c.at("depth_multiplier").get<int64_t>(), name, c.at("in_channels").get<int64_t>(),
                             c.at("use_bias").get<bool>());
}

}  // namespace strata::nn::detail
