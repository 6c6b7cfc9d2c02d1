#include "strata/nn/layers/activation.hpp"

#include "strata/nn/option_table.hpp"

#include "strata/ops/elementwise.hpp"

namespace strata::nn {

Tensor prelu(const Tensor& x, const Tensor& alpha) { return strata::relu(x) - alpha * strata::relu(-x); }

PRelu::PRelu(Options options, std::string name) : Layer("prelu", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

PRelu::PRelu(bool channel_shared, int64_t in_channels, Initializer a_init, std::string name)
    : PRelu(Options{.channel_shared = channel_shared, .in_channels = in_channels, .a_init = std::move(a_init)},
            std::move(name)) {}

void PRelu::build(const Shape& s) {
  const int64_t in_channels = options_.in_channels;
  expect(s.size() >= 1, "expects input [..., C], got a scalar");
  expect(in_channels < 0 || s.back() == in_channels,
         "was declared with " + std::to_string(in_channels) + " channels but got input of shape " + s.str());
  options_.in_channels = s.back();
  alpha = add_weight("alpha", {options_.channel_shared ? 1 : options_.in_channels}, options_.a_init);
}

Tensor PRelu::forward(const Tensor& x) {
  expect(x.dim() >= 1 && (options_.channel_shared || x.shape().back() == options_.in_channels),
         "expected input of shape [..., " + std::to_string(options_.in_channels) + "], got " + x.shape().str());
  return prelu(x, alpha);
}

Scale::Scale(Options options, std::string name) : Layer("scale", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

void Scale::build(const Shape&) { scale = add_weight("scale", {1}, constant_init(options_.init_scale)); }

Tensor Scale::forward(const Tensor& x) { return x * scale; }

STRATA_DEFINE_OPTIONS(PReluOptions, STRATA_PRELU_OPTIONS)
STRATA_DEFINE_OPTIONS(ScaleOptions, STRATA_SCALE_OPTIONS)
STRATA_LAYER("prelu", PRelu);
STRATA_LAYER("scale", Scale);

}  // namespace strata::nn
