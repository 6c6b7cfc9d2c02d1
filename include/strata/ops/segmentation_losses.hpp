// Multi-class soft Dice and soft IoU (Jaccard) losses for semantic segmentation, on logits: the
// softmax probabilities p against the one-hot labels t, each class's overlap summed over every
// pixel of the batch (all axes but the last), then 1 minus the mean over the classes:
//   dice: 1 - mean_c (2 sum(p t) + smooth) / (sum(p) + sum(t) + smooth)
//   iou:  1 - mean_c (sum(p t) + smooth) / (sum(p) + sum(t) - sum(p t) + smooth)
// Summing over the batch rather than per image keeps a class missing from one image (a small
// lesion) from scoring that image 0 or 1 by `smooth` alone. Built on dice_coe and soft_iou_coe
// (costs.hpp), so they are differentiable to any order. Add cross_entropy for the combined losses.
#pragma once
#include "strata/core/tensor.hpp"

namespace strata {

// logits float [..., C] (C >= 2), labels int64 / int32 class ids of shape logits.shape[:-1], each in
// [0, C); smooth > 0. Throws strata::Error naming the op otherwise.
Tensor soft_dice_loss(const Tensor& logits, const Tensor& labels, double smooth = 1.0);
Tensor soft_iou_loss(const Tensor& logits, const Tensor& labels, double smooth = 1.0);

}  // namespace strata
