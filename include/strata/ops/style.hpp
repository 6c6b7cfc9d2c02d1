// The statistics of feature maps that neural style transfer matches: Gram matrices (Gatys,
// Ecker & Bethge 2016), per-channel mean and standard deviation and adaptive instance
// normalisation (AdaIN, Huang & Belongie 2017), and the total-variation smoothness loss.
// Features are NHWC [N, H, W, C], images [N, H, W, C]. Each is a composition of differentiable
// ops, so gradients (of any order) come from autograd; docs/style_transfer.md uses them.
#pragma once
#include <utility>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata {

// [N, H, W, C] -> [N, C, C]: G[n, i, j] = sum over positions p of F[n, p, i] F[n, p, j] / (H W),
// the channels' correlations with where they occur averaged away.
Tensor gram_matrix(const Tensor& features);

// Gatys's style loss over several layers: the mean over layers of the mean squared difference
// between gram_matrix(features[l]) and target_grams[l] ([N or 1, C, C], broadcast over N).
Tensor gram_style_loss(const std::vector<Tensor>& features, const std::vector<Tensor>& target_grams);

// The per-image, per-channel mean and standard deviation over H and W ([N, 1, 1, C] each); the
// deviation is sqrt(biased variance + eps), so it is never 0 and always differentiable.
std::pair<Tensor, Tensor> channel_mean_std(const Tensor& features, double eps = 1e-5);

// AdaIN: content normalised per image and channel, then given the style's statistics:
// std(style) (content - mean(content)) / std(content) + mean(style). The two may differ in H, W;
// N and C must agree (or style's N be 1).
Tensor adain(const Tensor& content, const Tensor& style, double eps = 1e-5);

// AdaIN's style loss over several layers: the sum over layers of the mean squared differences of
// the channel means and of the channel deviations of features[l] and style_features[l].
Tensor mean_std_style_loss(const std::vector<Tensor>& features, const std::vector<Tensor>& style_features);

// images [N, H, W, C] -> the mean squared difference between vertically and horizontally
// neighbouring pixels (the two means added): small for smooth images.
Tensor total_variation_loss(const Tensor& images);

}  // namespace strata
