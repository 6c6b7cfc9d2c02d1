#include "strata/nn/layers/quantized.hpp"

#include <numeric>

#include "strata/autograd/grad_mode.hpp"
#include "strata/nn/option_table.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/reduce.hpp"

namespace strata::nn {

QuanWithBN::QuanWithBN(std::string kind, int rank, WeightShape weight_shape, Product product, int bit_w, int bit_a,
                       double decay, double epsilon, Activation act, std::string name, Initializer w_init)
    : QuanWithBN(Unchecked{}, std::move(kind), rank, std::move(weight_shape), std::move(product), bit_w, bit_a, decay,
                 epsilon, std::move(act), std::move(name), std::move(w_init)) {
  expect(bit_w >= 1 && bit_w <= 32 && bit_a >= 1 && bit_a <= 32,
         "bit_w and bit_a must be in 1..32, got " + std::to_string(bit_w) + " and " + std::to_string(bit_a));
  expect(decay >= 0 && decay <= 1, "decay must be in [0, 1], got " + std::to_string(decay));
}

QuanWithBN::QuanWithBN(Unchecked, std::string kind, int rank, WeightShape weight_shape, Product product, int bit_w,
                       int bit_a, double decay, double epsilon, Activation act, std::string name, Initializer w_init)
    : Layer(std::move(kind), std::move(name)),
      rank_(rank),
      weight_shape_(std::move(weight_shape)),
      product_(std::move(product)),
      bit_w_(bit_w),
      bit_a_(bit_a),
      decay_(decay),
      epsilon_(epsilon),
      act_(std::move(act)),
      w_init_(std::move(w_init)) {}

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

QuanDenseWithBN::QuanDenseWithBN(Options options, std::string name)
    : QuanWithBN(
          Unchecked{}, "quandensewithbn", -1,
          [units = options.units](const Shape& s) {
            return Shape{s.back(), units};
          },
          [](const Tensor& x, const Tensor& w) { return linear(x, w); }, options.bit_w, options.bit_a, options.decay,
          options.epsilon, options.act, std::move(name), options.w_init),
      options_(std::move(options)) {
  check_options(options_, *this);
}

QuanDenseWithBN::QuanDenseWithBN(int64_t units, int bit_w, int bit_a, Activation act, double decay, double epsilon,
                                 std::string name, Initializer w_init)
    : QuanDenseWithBN(Options{.units = units,
                              .bit_w = bit_w,
                              .bit_a = bit_a,
                              .act = std::move(act),
                              .decay = decay,
                              .epsilon = epsilon,
                              .w_init = std::move(w_init)},
                      std::move(name)) {}

QuanConv2dWithBN::QuanConv2dWithBN(Options options, std::string name)
    : QuanWithBN(
          Unchecked{}, "quanconv2dwithbn", 4,
          [n_filter = options.n_filter, k = options.filter_size](const Shape& s) {
            return Shape{k[0], k.size() > 1 ? k[1] : k[0], s[3], n_filter};
          },
          [conv = options.options](const Tensor& x, const Tensor& w) { return conv2d(x, w, Tensor(), conv); },
          options.bit_w, options.bit_a, options.decay, options.epsilon, options.act, std::move(name), options.w_init),
      options_(std::move(options)) {
  check_options(options_, *this);
  expect(options_.filter_size.size() == 1 || options_.filter_size.size() == 2, "filter_size must have 1 or 2 values");
  expect(options_.options.groups == 1, "groups are not supported (TensorLayer's has none)");
}

QuanConv2dWithBN::QuanConv2dWithBN(int64_t n_filter, SpatialSizes filter_size, int bit_w, int bit_a, Activation act,
                                   ConvOptions options, double decay, double epsilon, std::string name,
                                   Initializer w_init)
    : QuanConv2dWithBN(Options{.n_filter = n_filter,
                               .filter_size = std::move(filter_size),
                               .bit_w = bit_w,
                               .bit_a = bit_a,
                               .act = std::move(act),
                               .options = std::move(options),
                               .decay = decay,
                               .epsilon = epsilon,
                               .w_init = std::move(w_init)},
                       std::move(name)) {}

STRATA_DEFINE_OPTIONS(QuanDenseWithBNOptions, STRATA_QUAN_DENSE_WITH_BN_OPTIONS)
STRATA_DEFINE_OPTIONS(QuanConv2dWithBNOptions, STRATA_QUAN_CONV2D_WITH_BN_OPTIONS)

STRATA_LAYER("quandensewithbn", QuanDenseWithBN);
STRATA_LAYER("quanconv2dwithbn", QuanConv2dWithBN);

}  // namespace strata::nn
