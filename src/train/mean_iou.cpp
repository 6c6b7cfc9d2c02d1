#include "strata/train/mean_iou.hpp"

#include <limits>

#include "strata/core/error.hpp"

namespace strata::train {
namespace {

struct ClassCounts {
  int64_t tp = 0, targets = 0, predicted = 0;
};

ClassCounts class_counts(const ConfusionMatrix& matrix, int64_t cls) {
  STRATA_CHECK(cls >= 0 && cls < matrix.num_classes(), "class_iou: class ", cls, " is outside [0, ",
               matrix.num_classes(), ")");
  const auto& counts = matrix.counts();
  ClassCounts c{.tp = counts[cls][cls]};
  for (int64_t k = 0; k < matrix.num_classes(); ++k) {
    c.targets += counts[cls][k];
    c.predicted += counts[k][cls];
  }
  return c;
}

}  // namespace

double class_iou(const ConfusionMatrix& matrix, int64_t cls) {
  const ClassCounts c = class_counts(matrix, cls);
  const int64_t uni = c.targets + c.predicted - c.tp;  // tp + fn + fp
  return uni == 0 ? 0.0 : static_cast<double>(c.tp) / uni;
}

double mean_iou(const ConfusionMatrix& matrix) {
  double sum = 0;
  int64_t present = 0;
  for (int64_t cls = 0; cls < matrix.num_classes(); ++cls) {
    const ClassCounts c = class_counts(matrix, cls);
    if (c.targets + c.predicted == 0) continue;
    sum += class_iou(matrix, cls);
    ++present;
  }
  return present == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / present;
}

}  // namespace strata::train
