// Overlap of axis-aligned boxes as differentiable ops: IoU and its generalisations GIoU, DIoU
// and CIoU (YOLOv4's box loss). A box tensor has a last axis of 4, (x1, y1, x2, y2) with
// x1 <= x2 and y1 <= y2, in the pixel-edge coordinates of Box.
#pragma once
#include <cstdint>

#include "strata/core/tensor.hpp"
#include "strata/vision/annotations.hpp"

namespace strata::vision {

enum class IouKind {
  iou,   // |A n B| / |A u B|
  giou,  // iou - (|C| - |A u B|) / |C|, C the smallest box enclosing both (Rezatofighi et al.)
  diou,  // iou - d^2 / c^2: d the distance of the centres, c the diagonal of C (Zheng et al.)
  ciou,  // diou - alpha v: v = 4 / pi^2 (atan(wb / hb) - atan(wa / ha))^2 the aspect term, alpha =
         // v / (1 - iou + v) taken as a constant (no gradient), as the PyTorch YOLO ports do
};

// a and b [..., 4] of one floating dtype, broadcast against each other -> [...] (the broadcast
// shape less its last axis). eps keeps the divisions finite for empty boxes. Differentiable in a
// and b (max/min pick one side's gradient at ties).
Tensor box_iou(const Tensor& a, const Tensor& b, IouKind kind = IouKind::iou, double eps = 1e-9);
// Every pair: a [N, 4], b [M, 4] -> [N, M].
Tensor pairwise_box_iou(const Tensor& a, const Tensor& b, IouKind kind = IouKind::iou, double eps = 1e-9);

// One box found in an image, and one box of the truth.
struct Detection {
  Box box;
  double score = 0;
  int64_t label = 0;
};
struct LabeledBox {
  Box box;
  int64_t label = 0;
};

// The IoU of two single boxes (0 when either is empty).
double iou(const Box& a, const Box& b);

}  // namespace strata::vision
