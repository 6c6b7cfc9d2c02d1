#include "strata/ops/segmentation_losses.hpp"

#include <cmath>

#include "ops/op_common.hpp"
#include "strata/ops/costs.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/softmax.hpp"

namespace strata {
namespace {

struct ClassMaps {
  Tensor probs, onehot;
  Axes pixels;  // every axis but the classes'
};

ClassMaps class_maps(const char* op, const Tensor& logits, const Tensor& labels, double smooth) {
  ops::check_defined(logits, op, "logits");
  ops::check_defined(labels, op, "labels");
  ops::check_floating(logits, op);
  STRATA_CHECK(logits.dim() >= 2 && logits.size(-1) >= 2, op,
               ": expected logits [..., C] with at least 2 classes, got ", logits.shape().str());
  STRATA_CHECK(is_index_dtype(labels.dtype()), op, ": expected int64 or int32 labels, got ",
               dtype_name(labels.dtype()));
  const Shape want(logits.shape().begin(), logits.shape().end() - 1);
  STRATA_CHECK(labels.shape() == want, op, ": expected labels of shape ", want.str(), " (the logits' without the ",
               "classes), got ", labels.shape().str());
  STRATA_CHECK(std::isfinite(smooth) && smooth > 0, op, ": smooth must be finite and > 0, got ", smooth);
  Axes pixels;
  for (int64_t a = 0; a + 1 < logits.dim(); ++a) pixels.push_back(a);
  // one_hot throws for an id outside [0, C), naming it.
  return {softmax(logits, -1), one_hot(labels, logits.size(-1), logits.dtype()), pixels};
}

}  // namespace

Tensor soft_dice_loss(const Tensor& logits, const Tensor& labels, double smooth) {
  const ClassMaps m = class_maps("soft_dice_loss", logits, labels, smooth);
  return 1.0 - dice_coe(m.probs, m.onehot, DiceKind::sorensen, m.pixels, smooth);
}

Tensor soft_iou_loss(const Tensor& logits, const Tensor& labels, double smooth) {
  const ClassMaps m = class_maps("soft_iou_loss", logits, labels, smooth);
  return 1.0 - soft_iou_coe(m.probs, m.onehot, m.pixels, smooth);
}

}  // namespace strata
