// Style transfer's statistics as compositions of differentiable ops (no kernels of their own:
// they run on small feature maps, and composing gives higher-order gradients for free).
#include "strata/ops/style.hpp"

#include <cmath>

#include "strata/core/error.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/loss.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata {
namespace {

void check_nhwc(const char* op, const char* what, const Tensor& x) {
  STRATA_CHECK(x.defined() && x.dim() == 4 && is_floating(x.dtype()), op, ": expected ", what,
               " as floating [N, H, W, C], got ", x.defined() ? x.shape().str() + " " + dtype_name(x.dtype()) : "none");
}

void check_layers(const char* op, size_t features, size_t targets) {
  STRATA_CHECK(features > 0 && features == targets, op, ": expected one target per feature layer (at least one), got ",
               features, " layers and ", targets, " targets");
}

}  // namespace

Tensor gram_matrix(const Tensor& features) {
  check_nhwc("gram_matrix", "features", features);
  const int64_t n = features.size(0), positions = features.size(1) * features.size(2), c = features.size(3);
  const Tensor f = reshape(features, {n, positions, c});
  return matmul(transpose(f, 1, 2), f) / static_cast<double>(positions);
}

Tensor gram_style_loss(const std::vector<Tensor>& features, const std::vector<Tensor>& target_grams) {
  check_layers("gram_style_loss", features.size(), target_grams.size());
  Tensor total;
  for (size_t l = 0; l < features.size(); ++l) {
    const Tensor g = gram_matrix(features[l]);
    STRATA_CHECK(target_grams[l].dim() == 3 && target_grams[l].size(1) == g.size(1) && target_grams[l].size(2) == g.size(2),
                 "gram_style_loss: layer ", l, "'s Gram matrix is ", g.shape().str(), ", its target ",
                 target_grams[l].shape().str());
    const Tensor e = mean(square(g - target_grams[l]));
    total = total.defined() ? total + e : e;
  }
  return total / static_cast<double>(features.size());
}

std::pair<Tensor, Tensor> channel_mean_std(const Tensor& features, double eps) {
  check_nhwc("channel_mean_std", "features", features);
  STRATA_CHECK(eps > 0 && std::isfinite(eps), "channel_mean_std: eps must be positive, got ", eps);
  const Tensor mu = mean(features, {1, 2}, true);
  return {mu, sqrt(var(features, {1, 2}, 0, true) + eps)};
}

Tensor adain(const Tensor& content, const Tensor& style, double eps) {
  check_nhwc("adain", "content features", content);
  check_nhwc("adain", "style features", style);
  STRATA_CHECK(content.size(3) == style.size(3) && (style.size(0) == content.size(0) || style.size(0) == 1),
               "adain: content ", content.shape().str(), " and style ", style.shape().str(),
               " must have the same channels and batch (or a style batch of 1)");
  const auto [content_mean, content_std] = channel_mean_std(content, eps);
  const auto [style_mean, style_std] = channel_mean_std(style, eps);
  return (content - content_mean) / content_std * style_std + style_mean;
}

Tensor mean_std_style_loss(const std::vector<Tensor>& features, const std::vector<Tensor>& style_features) {
  check_layers("mean_std_style_loss", features.size(), style_features.size());
  Tensor total;
  for (size_t l = 0; l < features.size(); ++l) {
    const auto [mu, sigma] = channel_mean_std(features[l]);
    const auto [style_mu, style_sigma] = channel_mean_std(style_features[l]);
    STRATA_CHECK(mu.size(3) == style_mu.size(3), "mean_std_style_loss: layer ", l, " has ", mu.size(3),
                 " channels, its style features ", style_mu.size(3));
    const Tensor e = mean(square(mu - style_mu)) + mean(square(sigma - style_sigma));
    total = total.defined() ? total + e : e;
  }
  return total;
}

Tensor total_variation_loss(const Tensor& images) {
  check_nhwc("total_variation_loss", "images", images);
  const int64_t h = images.size(1), w = images.size(2);
  STRATA_CHECK(h >= 2 && w >= 2, "total_variation_loss: images must be at least 2x2, got ", images.shape().str());
  const Tensor dy = narrow(images, 1, 1, h - 1) - narrow(images, 1, 0, h - 1);
  const Tensor dx = narrow(images, 2, 1, w - 1) - narrow(images, 2, 0, w - 1);
  return mean(square(dy)) + mean(square(dx));
}

}  // namespace strata
