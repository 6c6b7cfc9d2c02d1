#include "strata/nn/layers/norm.hpp"

#include "nn/scoped_assign.hpp"
#include "strata/autograd/grad_mode.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/layers/conv.hpp"
#include "strata/nn/layers/quantized.hpp"
#include "strata/nn/option_table.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {
namespace {

// W as a matrix [inputs, outputs].
Tensor as_matrix(const Tensor& w) { return reshape(w, {-1, w.shape().back()}); }

Axes input_axes(const Tensor& w) {
  Axes axes;
  for (int d = 0; d + 1 < w.dim(); ++d) axes.push_back(d);
  return axes;
}

template <class L>
Tensor* member_of(Layer& layer, Tensor L::*member) {
  auto* l = dynamic_cast<L*>(&layer);
  return l ? &(l->*member) : nullptr;
}

// The weight members a saved wrapper can name (see the header); nullptr for others.
constexpr const char* kNameable = "only the W of a Dense, Conv2d, ConvLayer, DepthwiseConv2d or QuantizedConv2d";
Tensor* weight_member(Layer& layer, const std::string& name) {
  if (name != "W") return nullptr;
  for (Tensor* w : {member_of(layer, &Dense::W), member_of(layer, &Conv2d::W), member_of(layer, &ConvLayer::W),
                    member_of(layer, &DepthwiseConv2d::W), member_of(layer, &QuantizedConv2d::W)})
    if (w) return w;
  return nullptr;
}

}  // namespace

WeightWrapper::WeightWrapper(std::string kind, Layer& layer, Tensor& weight, std::string name)
    : Layer(std::move(kind), std::move(name)), layer_(std::shared_ptr<Layer>(), &layer), weight_(&weight) {}

WeightWrapper::WeightWrapper(std::string kind, std::shared_ptr<Layer> layer, const std::string& weight,
                             std::string name)
    : Layer(std::move(kind), std::move(name)),
      layer_(std::move(layer)),
      weight_(layer_ ? weight_member(*layer_, weight) : nullptr) {
  expect(layer_ != nullptr, "was given no layer to wrap");
  expect(weight_ != nullptr,
         "cannot wrap weight '" + weight + "' of " + layer_->name() + " (" + layer_->kind() + "): " + kNameable);
}

std::string WeightWrapper::weight_name() const { return weight_member(*layer_, "W") == weight_ ? "W" : ""; }

void WeightWrapper::expect_nameable() const {
  expect(!weight_name().empty(), "wraps a weight of " + layer_->name() + " (" + layer_->kind() +
                                     ") that a saved model cannot name: " + kNameable);
}

Tensor WeightWrapper::forward(const Tensor& x) {
  if (!prepared_) {
    if (!layer_->built()) {
      NoGradGuard no_grad;
      (*layer_)(x);  // builds the weights from x's shape
    }
    expect(weight_->defined() && weight_->dim() >= 1,
           "the wrapped layer " + layer_->name() + " has no such weight after its first call");
    prepare();
    prepared_ = true;
  }
  Tensor v = *weight_;
  ScopedAssign<Tensor> swap(*weight_, reparametrise(v));
  return (*layer_)(x);
}

SpectralNorm::SpectralNorm(Options options, std::string name)
    : WeightWrapper("spectralnorm", options.layer, options.weight, std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

SpectralNorm::SpectralNorm(Layer& layer, Tensor& weight, int n_power_iterations, double eps, std::string name)
    : WeightWrapper("spectralnorm", layer, weight, std::move(name)),
      options_(Options{
          .layer = wrapped_layer(), .weight = weight_name(), .n_power_iterations = n_power_iterations, .eps = eps}) {
  check_options(options_, *this);
}

SpectralNorm::SpectralNorm(std::shared_ptr<Layer> layer, const std::string& weight, int n_power_iterations, double eps,
                           std::string name)
    : SpectralNorm(
          Options{.layer = std::move(layer), .weight = weight, .n_power_iterations = n_power_iterations, .eps = eps},
          std::move(name)) {}

const SpectralNorm::Options& SpectralNorm::options() const {
  expect_nameable();
  return options_;
}

void SpectralNorm::prepare() {
  const Tensor& w = weight();
  u = add_weight(
      "u", {w.shape().back()},
      [&](const Shape& s, Generator* gen) {
        Tensor r = randn(s, w.dtype(), gen);
        return r / norm(r);
      },
      false);
}

Tensor SpectralNorm::sigma() const {
  Tensor m = as_matrix(weight());
  Tensor mu = sum(m * u.detach(), {1});  // W u [inputs]
  Tensor v = (mu / (norm(mu) + options_.eps)).detach();
  return sum(v * mu);  // v^T W u
}

Tensor SpectralNorm::reparametrise(const Tensor& w) {
  if (training() && !w.is_meta()) {
    NoGradGuard no_grad;
    Tensor m = as_matrix(w.detach()), uu = u;
    for (int i = 0; i < options_.n_power_iterations; ++i) {
      Tensor v = sum(m * uu, {1});
      v = v / (norm(v) + options_.eps);
      uu = sum(m * unsqueeze(v, 1), {0});
      uu = uu / (norm(uu) + options_.eps);
    }
    copy_(u, uu);
  }
  return w / sigma();
}

WeightNorm::WeightNorm(Options options, std::string name)
    : WeightWrapper("weightnorm", options.layer, options.weight, std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

WeightNorm::WeightNorm(Layer& layer, Tensor& weight, std::string name)
    : WeightWrapper("weightnorm", layer, weight, std::move(name)),
      options_(Options{.layer = wrapped_layer(), .weight = weight_name()}) {
  check_options(options_, *this);
}

WeightNorm::WeightNorm(std::shared_ptr<Layer> layer, const std::string& weight, std::string name)
    : WeightNorm(Options{.layer = std::move(layer), .weight = weight}, std::move(name)) {}

const WeightNorm::Options& WeightNorm::options() const {
  expect_nameable();
  return options_;
}

void WeightNorm::prepare() {
  const Tensor& v = weight();
  g = add_weight("g", {v.shape().back()}, [&](const Shape&, Generator*) {
    NoGradGuard no_grad;
    return clone(norm(v.detach(), 2, input_axes(v)));
  });
}

Tensor WeightNorm::reparametrise(const Tensor& v) { return v * (g / norm(v, 2, input_axes(v))); }

STRATA_DEFINE_OPTIONS(SpectralNormOptions, STRATA_SPECTRAL_NORM_OPTIONS)
STRATA_DEFINE_OPTIONS(WeightNormOptions, STRATA_WEIGHT_NORM_OPTIONS)

STRATA_LAYER("spectralnorm", SpectralNorm);
STRATA_LAYER("weightnorm", WeightNorm);

}  // namespace strata::nn
