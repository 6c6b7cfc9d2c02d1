#include "strata/points/point_mlp.hpp"

#include "strata/nn/option_table.hpp"

namespace strata::nn {
STRATA_DEFINE_OPTIONS(points::PointMlpOptions, STRATA_POINT_MLP_OPTIONS)
}  // namespace strata::nn

namespace strata::points {

PointMlp::PointMlp(Options options, std::string name) : Layer("pointmlp", std::move(name)), options_(std::move(options)) {
  nn::check_options(options_, *this);
  STRATA_CHECK(!options_.units.empty(), nn::owner_text(*this), ": \"units\" must name at least one level");
  for (size_t i = 0; i < options_.units.size(); ++i) {
    const std::string level = std::to_string(i);
    // With a BatchNorm the Dense needs no bias (the norm's beta is one) and no activation.
    dense_.push_back(std::make_unique<nn::Dense>(nn::DenseOptions{.units = options_.units[i],
                                                                  .act = options_.batch_norm ? nn::Activation{} : options_.act,
                                                                  .use_bias = !options_.batch_norm,
                                                                  .w_init = options_.w_init},
                                                 this->name() + "/dense_" + level));
    if (options_.batch_norm)
      norm_.push_back(std::make_unique<nn::BatchNorm>(nn::BatchNormOptions{.act = options_.act}, this->name() + "/bn_" + level));
  }
}

PointMlp::PointMlp(std::vector<int64_t> units, bool batch_norm, nn::Activation act, std::string name)
    : PointMlp(Options{.units = std::move(units), .batch_norm = batch_norm, .act = std::move(act)}, std::move(name)) {}

Tensor PointMlp::forward(const Tensor& x) {
  expect(x.dim() >= 2, "expected points [..., C] of rank >= 2, got " + x.shape().str());
  Tensor h = x;
  for (size_t i = 0; i < dense_.size(); ++i) {
    h = (*dense_[i])(h);
    if (options_.batch_norm) h = (*norm_[i])(h);
  }
  return h;
}

STRATA_LAYER("pointmlp", PointMlp);

}  // namespace strata::points
