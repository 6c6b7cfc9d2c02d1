// Part segmentation's measure, as ShapeNet-Part is scored (PointNet's and PointNet++'s
// evaluation): each shape's prediction is restricted to its category's parts; a shape's IoU is the
// mean over its category's parts of |pred ∩ truth| / |pred ∪ truth|, a part absent from both
// counting 1; instance mIoU averages shapes, class mIoU averages the categories' means.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::points {

// The parts of a category: global part ids first .. first + count - 1.
struct PartRange {
  std::string name;
  int64_t first = 0, count = 0;
};

struct PartIou {
  double instance_miou = 0, class_miou = 0;
  std::vector<double> per_category;  // mean IoU of each category's shapes (0 with no shape)
  Tensor predictions;                // int64 [N, P]: each point's part, within its category
};

// logits float [N, P, parts], truth int64 [N, P] (global part ids), categories int64 [N].
PartIou part_mean_iou(const Tensor& logits, const Tensor& truth, const Tensor& categories,
                      const std::vector<PartRange>& ranges);

}  // namespace strata::points
