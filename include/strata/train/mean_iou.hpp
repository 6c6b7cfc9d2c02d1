// Semantic segmentation's measure (Keras's MeanIoU, the PASCAL VOC and Cityscapes score): from
// the confusion matrix of every pixel, each class's IoU tp / (tp + fp + fn), and their mean over
// the classes that occur as a target or a prediction. A class's Dice, 2 tp / (2 tp + fp + fn),
// is its F1 (ConfusionMatrix::f1, macro_f1 for the mean).
#pragma once
#include <cstdint>
#include <string>

#include "strata/train/confusion_matrix.hpp"

namespace strata::train {

// IoU of class `cls` over everything counted so far, 0 when it is neither a target nor predicted.
double class_iou(const ConfusionMatrix& matrix, int64_t cls);
// The mean of class_iou over the classes present; NaN before any update.
double mean_iou(const ConfusionMatrix& matrix);

// mean_iou as a Metric for fit(): outputs [..., C] scores, targets class ids [...].
class MeanIou : public ConfusionMetric {
 public:
  explicit MeanIou(int64_t num_classes = 0) : ConfusionMetric(num_classes) {}
  std::string name() const override { return "mean_iou"; }
  double result() const override { return mean_iou(cm_); }
};

}  // namespace strata::train
