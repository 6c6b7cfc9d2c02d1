// TensorLayer's remaining costs (tl.cost), composed from differentiable ops so that autograd
// (and second-order gradients) come for free; the fused losses are in loss.hpp.
// "Per-sample" below means over every axis but the first (the batch axis) unless `axes` says
// otherwise, as TensorLayer's axis=(1, 2, 3) default for NHWC segmentation maps.
#pragma once
#include "strata/ops/loss.hpp"
#include "strata/ops/reduce.hpp"

namespace strata {

// -(t log(p + eps) + (1 - t) log(1 - p + eps)) on probabilities p in [0, 1] (TensorLayer's
// binary_cross_entropy; eps keeps log finite at p = 0 or 1). p and t have the same shape and
// dtype; reduction is per element (TensorLayer sums the last axis before its mean, i.e. its value
// is this mean times the last axis' size). Throws when a probability lies outside [0, 1].
Tensor binary_cross_entropy(const Tensor& probs, const Tensor& targets, Reduction reduction = Reduction::mean,
                            double eps = 1e-8);

enum class DiceKind { jaccard, sorensen };

// Soft dice coefficient (cost.dice_coe): per sample (2 sum(o t) + smooth) / (l + r + smooth) with
// l, r = sum(o^2), sum(t^2) (jaccard) or sum(o), sum(t) (sorensen); the mean over the batch.
// In [0, 1] for o, t in [0, 1]; 1 - dice_coe is the usual segmentation loss.
Tensor dice_coe(const Tensor& output, const Tensor& target, DiceKind kind = DiceKind::jaccard,
                const Axes& axes = {}, double smooth = 1e-5);
// Hard dice (cost.dice_hard_coe): o and t thresholded (> threshold) first. No gradient.
Tensor dice_hard_coe(const Tensor& output, const Tensor& target, double threshold = 0.5, const Axes& axes = {},
                     double smooth = 1e-5);
// Hard IoU (cost.iou_coe): (|o & t| + smooth) / (|o | t| + smooth) of the thresholded maps, the
// mean over the batch. No gradient.
Tensor iou_coe(const Tensor& output, const Tensor& target, double threshold = 0.5, const Axes& axes = {},
               double smooth = 1e-5);
// Soft IoU: (sum(o t) + smooth) / (sum(o) + sum(t) - sum(o t) + smooth), the batch mean;
// differentiable, so 1 - soft_iou_coe trains.
Tensor soft_iou_coe(const Tensor& output, const Tensor& target, const Axes& axes = {}, double smooth = 1e-5);

// sum(a b) / max(|a| |b|, eps) along `axis` (cost.cosine_similarity, which uses axis 1): one value
// per remaining position, a and b broadcast.
Tensor cosine_similarity(const Tensor& a, const Tensor& b, int64_t axis = -1, double eps = 1e-8);

// Per sample |o - t|_2 / |t|_2 over every axis but the first (cost.normalized_mean_square_error,
// which is the mean). A target sample that is all zeros divides by zero (inf or NaN), as in
// TensorLayer.
Tensor normalized_mse(const Tensor& output, const Tensor& target, Reduction reduction = Reduction::mean);

// Softmax cross-entropy of a batch of sequences where `mask` [B, T] (0/1, or weights) marks the
// real steps (cost.cross_entropy_seq_with_mask): sum(ce * mask) / sum(mask). logits [B, T, C] or
// TensorLayer's flattened [B*T, C]; targets int class ids [B, T]. Throws when the mask is all 0.
Tensor cross_entropy_seq_with_mask(const Tensor& logits, const Tensor& targets, const Tensor& mask);

// Weight regularisers (tl.cost's *_regularizer, applied to a weight): scalars to add to a loss.
// scale must be finite and >= 0. For a 2-D weight [in, out]:
Tensor l1_regularizer(const Tensor& w, double scale);  // scale sum|w|
Tensor l2_regularizer(const Tensor& w, double scale);  // scale sum(w^2) / 2 (TensorFlow's l2_regularizer)
Tensor li_regularizer(const Tensor& w, double scale);  // scale sum_i |w[i, :]|_2: prunes inputs
Tensor lo_regularizer(const Tensor& w, double scale);  // scale sum_j |w[:, j]|_2: prunes outputs
Tensor maxnorm_regularizer(const Tensor& w, double scale);    // scale max|w|
Tensor maxnorm_o_regularizer(const Tensor& w, double scale);  // scale sum_j max_i |w[i, j]|
Tensor maxnorm_i_regularizer(const Tensor& w, double scale);  // scale sum_i max_j |w[i, j]|

}  // namespace strata
