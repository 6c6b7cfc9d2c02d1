#include "strata/nn/misc.hpp"

#include "strata/nn/layer_config.hpp"

#include "strata/ops/elementwise.hpp"

namespace strata::nn {

Tensor prelu(const Tensor& x, const Tensor& alpha) { return strata::relu(x) - alpha * strata::relu(-x); }

PRelu::PRelu(bool channel_shared, int64_t in_channels, Initializer a_init, std::string name)
    : Layer("prelu", std::move(name)), channel_shared_(channel_shared), in_channels_(in_channels),
      a_init_(std::move(a_init)) {}

void PRelu::build(const Shape& s) {
  expect(s.size() >= 1, "expects input [..., C], got a scalar");
  expect(in_channels_ < 0 || s.back() == in_channels_,
         "was declared with " + std::to_string(in_channels_) + " channels but got input of shape " + s.str());
  in_channels_ = s.back();
  alpha = add_weight("alpha", {channel_shared_ ? 1 : in_channels_}, a_init_);
}

Tensor PRelu::forward(const Tensor& x) {
  expect(x.dim() >= 1 && (channel_shared_ || x.shape().back() == in_channels_),
         "expected input of shape [..., " + std::to_string(in_channels_) + "], got " + x.shape().str());
  return prelu(x, alpha);
}

Scale::Scale(double init_scale, std::string name) : Layer("scale", std::move(name)), init_scale_(init_scale) {}

void Scale::build(const Shape&) { scale = add_weight("scale", {1}, constant_init(init_scale_)); }

Tensor Scale::forward(const Tensor& x) { return x * scale; }

GaussianNoise::GaussianNoise(double mean, double stddev, bool is_always, int64_t seed, std::string name)
    : Layer("gaussiannoise", std::move(name)), mean_(mean), stddev_(stddev), is_always_(is_always), seed_(seed),
      gen_(seed >= 0 ? std::make_unique<Generator>(static_cast<uint64_t>(seed)) : nullptr) {
  expect(stddev >= 0, "stddev must be non-negative, got " + std::to_string(stddev));
}

Tensor GaussianNoise::forward(const Tensor& x) {
  if (!training() && !is_always_) return x;
  expect(is_floating(x.dtype()), std::string("expects a float32 or float64 input, got ") + dtype_name(x.dtype()));
  return x + normal(x.shape(), mean_, stddev_, x.dtype(), gen_.get());
}

using nlohmann::json;


void PRelu::get_config(json& c) const { c = {{"channel_shared", channel_shared_}, {"in_channels", in_channels_}}; }

STRATA_LAYER_CLASS("prelu", [](const json& c, const std::string& name) {
  return std::make_shared<PRelu>(c.at("channel_shared").get<bool>(), c.at("in_channels").get<int64_t>(),
                                 truncated_normal(0.0, 0.05), name);
});

void Scale::get_config(json& c) const { c = {{"init_scale", init_scale_}}; }

STRATA_LAYER_CLASS("scale", [](const json& c, const std::string& name) {
  return std::make_shared<Scale>(c.at("init_scale").get<double>(), name);
});

void GaussianNoise::get_config(json& c) const {
  c = {{"mean", mean_}, {"stddev", stddev_}, {"is_always", is_always_}, {"seed", seed_}};
}

STRATA_LAYER_CLASS("gaussiannoise", [](const json& c, const std::string& name) {
  return std::make_shared<GaussianNoise>(c.at("mean").get<double>(), c.at("stddev").get<double>(),
                                         c.at("is_always").get<bool>(), c.at("seed").get<int64_t>(), name);
});

}  // namespace strata::nn
