#include "strata/nn/quantized_bn.hpp"

#include <numeric>

#include "strata/autograd/grad_mode.hpp"
#include "strata/nn/layer_config.hpp"
#include "strata/nn/quantized.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/reduce.hpp"

namespace strata::nn {

QuanWithBN::QuanWithBN(std::string kind, int rank, WeightShape weight_shape, Product product, int bit_w, int bit_a,
                       double decay, double epsilon, Activation act, std::string name, Initializer w_init)
    : Layer(std::move(kind), std::move(name)), rank_(rank), weight_shape_(std::move(weight_shape)),
      product_(std::move(product)), bit_w_(bit_w), bit_a_(bit_a), decay_(decay), epsilon_(epsilon),
      act_(std::move(act)), w_init_(std::move(w_init)) {
  expect(bit_w >= 1 && bit_w <= 32 && bit_a >= 1 && bit_a <= 32,
         "bit_w and bit_a must be in 1..32, got " + std::to_string(bit_w) + " and " + std::to_string(bit_a));
  expect(decay >= 0 && decay <= 1, "decay must be in [0, 1], got " + std::to_string(decay));
}

void QuanWithBN::build(const Shape& s) {
  expect(rank_ < 0 ? s.size() >= 1 : static_cast<int>(s.size()) == rank_,
         "expects input of rank " + (rank_ < 0 ? std::string(">= 1") : std::to_string(rank_)) + ", got " + s.str());
  w_shape_ = weight_shape_(s);
  W = add_weight("W", w_shape_, w_init_);
  const Shape c{w_shape_.back()};
  gamma = add_weight("gamma", c, ones_init());
  beta = add_weight("beta", c, zeros_init());
  moving_mean = add_weight("moving_mean", c, zeros_init(), /*trainable=*/false);
  moving_var = add_weight("moving_var", c, ones_init(), /*trainable=*/false);
}

std::pair<Tensor, Tensor> QuanWithBN::folded(const Tensor& x) {
  Tensor m = moving_mean, v = moving_var;
  if (training()) {
    Tensor mid = product_(x, W);  // the float product, as TensorLayer takes its moments
    std::vector<int64_t> axes(mid.dim() - 1);
    std::iota(axes.begin(), axes.end(), 0);
    m = mean(mid, axes);
    v = var(mid, axes, /*correction=*/0);
    NoGradGuard no_grad;
    Tensor new_mean = moving_mean * decay_ + m.detach() * (1 - decay_);
    Tensor new_var = moving_var * decay_ + v.detach() * (1 - decay_);
    copy_(moving_mean, new_mean);
    copy_(moving_var, new_var);
  }
  Tensor inv_std = rsqrt(v + epsilon_);
  Tensor w_fold = quantize_min_max(W * (gamma * inv_std), bit_w_);
  return {w_fold, beta - gamma * m * inv_std};
}

Tensor QuanWithBN::forward(const Tensor& x) {
  expect((rank_ < 0 ? x.dim() >= 1 : x.dim() == rank_) && x.shape().back() == w_shape_[w_shape_.size() - 2],
         "expected input with " + std::to_string(w_shape_[w_shape_.size() - 2]) + " channels (last axis), got " +
             x.shape().str());
  auto [w, b] = folded(x);
  return act_(product_(quantize_min_max(x, bit_a_), w) + b);
}

QuanDenseWithBN::QuanDenseWithBN(int64_t units, int bit_w, int bit_a, Activation act, double decay, double epsilon,
                                 std::string name, Initializer w_init)
    : QuanWithBN(
          "quandensewithbn", -1, [units](const Shape& s) { return Shape{s.back(), units}; },
          [](const Tensor& x, const Tensor& w) { return linear(x, w); }, bit_w, bit_a, decay, epsilon,
          std::move(act), std::move(name), std::move(w_init)),
      units_(units) {
  expect(units > 0, "units must be positive, got " + std::to_string(units));
}

QuanConv2dWithBN::QuanConv2dWithBN(int64_t n_filter, SpatialSizes filter_size, int bit_w, int bit_a,
                                   Activation act, ConvOptions options, double decay, double epsilon,
                                   std::string name, Initializer w_init)
    : QuanWithBN(
          "quanconv2dwithbn", 4,
          [n_filter, k = filter_size](const Shape& s) {
            return Shape{k[0], k.size() > 1 ? k[1] : k[0], s[3], n_filter};
          },
          [options](const Tensor& x, const Tensor& w) { return conv2d(x, w, Tensor(), options); }, bit_w, bit_a, decay,
          epsilon, std::move(act), std::move(name), std::move(w_init)),
      n_filter_(n_filter), filter_size_(filter_size), options_(options) {
  expect(n_filter > 0, "n_filter must be positive, got " + std::to_string(n_filter));
  expect(filter_size.size() == 1 || filter_size.size() == 2, "filter_size must have 1 or 2 values");
  expect(options.groups == 1, "groups are not supported (TensorLayer's has none)");
}


void QuanWithBN::get_config(nlohmann::json& c) const {
  c = {{"bit_w", bit_w_}, {"bit_a", bit_a_}, {"act", activation_name(act_, *this)}, {"decay", decay_},
       {"epsilon", epsilon_}};
}

void QuanDenseWithBN::get_config(nlohmann::json& c) const {
  QuanWithBN::get_config(c);
  c["units"] = units_;
}

void QuanConv2dWithBN::get_config(nlohmann::json& c) const {
  QuanWithBN::get_config(c);
  c.update({{"n_filter", n_filter_}, {"filter_size", filter_size_}, {"options", conv_options_config(options_)}});
}

STRATA_LAYER_CLASS("quandensewithbn", [](const nlohmann::json& c, const std::string& name) {
  return std::make_shared<QuanDenseWithBN>(c.at("units").get<int64_t>(), c.at("bit_w").get<int>(),
                                           c.at("bit_a").get<int>(), Activation(c.at("act").get<std::string>()),
                                           c.at("decay").get<double>(), c.at("epsilon").get<double>(), name);
});
STRATA_LAYER_CLASS("quanconv2dwithbn", [](const nlohmann::json& c, const std::string& name) {
  return std::make_shared<QuanConv2dWithBN>(c.at("n_filter").get<int64_t>(), dims_of(c.at("filter_size")),
                                            c.at("bit_w").get<int>(), c.at("bit_a").get<int>(),
                                            Activation(c.at("act").get<std::string>()),
                                            conv_options_from(c.at("options")), c.at("decay").get<double>(),
                                            c.at("epsilon").get<double>(), name);
});

}  // namespace strata::nn
