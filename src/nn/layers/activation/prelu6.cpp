#include "strata/nn/layers/activation.hpp"

#include "strata/nn/option_table.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::nn {
namespace {

// The slope shape from the input: [C], or [1] when shared.
int64_t slope_size(const Layer& layer, const Shape& s, bool shared, int64_t& channels) {
  if (s.size() < 1) throw Error(layer.name() + " (" + layer.kind() + "): expects input [..., C], got a scalar");
  channels = s.back();
  return shared ? 1 : channels;
}

std::string expected_input(int64_t channels) {
  return "expected input of shape [..., " + std::to_string(channels) + "]";
}

}  // namespace

Tensor prelu6(const Tensor& x, const Tensor& alpha) { return relu6(x) - alpha * strata::relu(-x); }

Tensor ptrelu6(const Tensor& x, const Tensor& alpha_low, const Tensor& alpha_high) {
  return relu6(x) + alpha_high * strata::relu(x - 6.0) - alpha_low * strata::relu(-x);
}

PRelu6::PRelu6(Options options, std::string name) : Layer("prelu6", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

PRelu6::PRelu6(bool channel_shared, Initializer a_init, std::string name)
    : PRelu6(Options{.channel_shared = channel_shared, .a_init = std::move(a_init)}, std::move(name)) {}

void PRelu6::build(const Shape& s) {
  alpha = add_weight("alpha", {slope_size(*this, s, options_.channel_shared, channels_)}, options_.a_init);
}

Tensor PRelu6::forward(const Tensor& x) {
  expect(x.dim() >= 1 && (options_.channel_shared || x.shape().back() == channels_),
         expected_input(channels_) + ", got " + x.shape().str());
  return prelu6(x, alpha);
}

PTRelu6::PTRelu6(Options options, std::string name) : Layer("ptrelu6", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

PTRelu6::PTRelu6(bool channel_shared, Initializer a_init, std::string name)
    : PTRelu6(Options{.channel_shared = channel_shared, .a_init = std::move(a_init)}, std::move(name)) {}

void PTRelu6::build(const Shape& s) {
  const int64_t n = slope_size(*this, s, options_.channel_shared, channels_);
  alpha_low = add_weight("alpha_low", {n}, options_.a_init);
  alpha_high = add_weight("alpha_high", {n}, options_.a_init);
}

Tensor PTRelu6::forward(const Tensor& x) {
  expect(x.dim() >= 1 && (options_.channel_shared || x.shape().back() == channels_),
         expected_input(channels_) + ", got " + x.shape().str());
  return ptrelu6(x, alpha_low, alpha_high);
}

STRATA_DEFINE_OPTIONS(PRelu6Options, STRATA_PRELU6_OPTIONS)
STRATA_LAYER("prelu6", PRelu6);
STRATA_LAYER("ptrelu6", PTRelu6);

}  // namespace strata::nn
