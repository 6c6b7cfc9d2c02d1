// Non-maximum suppression: greedy (torchvision's nms / batched_nms) and darknet's DIoU-NMS.
#pragma once
#include "strata/core/tensor.hpp"

namespace strata::vision {

enum class NmsKind {
  greedy,  // drop a box whose IoU with a kept box of its class exceeds the threshold
  diou,    // darknet's diounms: drop when IoU - (d^2 / c^2)^beta exceeds it (d the distance of the
           // centres, c the diagonal of the enclosing box; plain IoU where c = 0)
};

struct NmsOptions {
  double iou_threshold = 0.45;  // suppress above it (strictly), as torchvision and darknet
  NmsKind kind = NmsKind::greedy;
  double beta = 0.6;  // darknet's beta_nms
};

// boxes [N, 4] (x1, y1, x2, y2), scores [N] -> int64 [K]: the indices kept, by decreasing score,
// equal scores by lower index. Boxes are visited in that order; each kept box suppresses the
// later ones that overlap it too much. Scores must not be NaN.
Tensor nms(const Tensor& boxes, const Tensor& scores, const NmsOptions& options = {});
// Class-wise: boxes of different classes (int [N]) never suppress each other (torchvision's
// batched_nms). The result is ordered as nms's.
Tensor batched_nms(const Tensor& boxes, const Tensor& scores, const Tensor& classes, const NmsOptions& options = {});

}  // namespace strata::vision
