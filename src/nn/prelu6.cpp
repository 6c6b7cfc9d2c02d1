#include "strata/nn/prelu6.hpp"

#include "strata/nn/layer_config.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::nn {
namespace {

// The slope shape from the input: [C], or [1] when shared.
int64_t slope_size(const Layer& layer, const Shape& s, bool shared, int64_t& channels) {
  if (s.size() < 1) throw Error(layer.name() + " (" + layer.kind() + "): expects input [..., C], got a scalar");
  channels = s.back();
  return shared ? 1 : channels;
}

std::string expected_input(int64_t channels) { return "expected input of shape [..., " + std::to_string(channels) + "]"; }

}  // namespace

Tensor prelu6(const Tensor& x, const Tensor& alpha) { return relu6(x) - alpha * strata::relu(-x); }

Tensor ptrelu6(const Tensor& x, const Tensor& alpha_low, const Tensor& alpha_high) {
  return relu6(x) + alpha_high * strata::relu(x - 6.0) - alpha_low * strata::relu(-x);
}

PRelu6::PRelu6(bool channel_shared, Initializer a_init, std::string name)
    : Layer("prelu6", std::move(name)), channel_shared_(channel_shared), a_init_(std::move(a_init)) {}

void PRelu6::build(const Shape& s) { alpha = add_weight("alpha", {slope_size(*this, s, channel_shared_, channels_)}, a_init_); }

Tensor PRelu6::forward(const Tensor& x) {
  expect(x.dim() >= 1 && (channel_shared_ || x.shape().back() == channels_),
         expected_input(channels_) + ", got " + x.shape().str());
  return prelu6(x, alpha);
}

PTRelu6::PTRelu6(bool channel_shared, Initializer a_init, std::string name)
    : Layer("ptrelu6", std::move(name)), channel_shared_(channel_shared), a_init_(std::move(a_init)) {}

void PTRelu6::build(const Shape& s) {
  const int64_t n = slope_size(*this, s, channel_shared_, channels_);
  alpha_low = add_weight("alpha_low", {n}, a_init_);
  alpha_high = add_weight("alpha_high", {n}, a_init_);
}

Tensor PTRelu6::forward(const Tensor& x) {
  expect(x.dim() >= 1 && (channel_shared_ || x.shape().back() == channels_),
         expected_input(channels_) + ", got " + x.shape().str());
  return ptrelu6(x, alpha_low, alpha_high);
}


void PRelu6::get_config(nlohmann::json& c) const { c = {{"channel_shared", channel_shared_}}; }
void PTRelu6::get_config(nlohmann::json& c) const { c = {{"channel_shared", channel_shared_}}; }

template <class L>
std::shared_ptr<Layer> relu6_from_config(const nlohmann::json& c, const std::string& name) {
  return std::make_shared<L>(c.at("channel_shared").get<bool>(), truncated_normal(0.0, 0.05), name);
}

STRATA_LAYER_CLASS("prelu6", relu6_from_config<PRelu6>);
STRATA_LAYER_CLASS("ptrelu6", relu6_from_config<PTRelu6>);

}  // namespace strata::nn
