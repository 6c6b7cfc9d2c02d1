// The YOLOv4 training loss (darknet's yolo_layer.c with iou_loss=ciou, as the PyTorch ports
// compute it): for the raw outputs of the [yolo] heads and the true boxes of each image.
#pragma once
#include <vector>

#include "strata/core/tensor.hpp"
#include "strata/vision/boxes.hpp"
#include "strata/vision/darknet.hpp"

namespace strata::vision {

struct YoloLoss {
  Tensor total;       // box + objectness + classes: the scalar to minimise
  Tensor box;         // sum over assigned anchors of iou_normalizer * (1 - CIoU), / N
  Tensor objectness;  // sum of BCE(objectness, assigned) over the anchors not ignored, / N
  Tensor classes;     // sum over assigned anchors of cls_normalizer * BCE(class logits, one-hot), / N
  int64_t assigned = 0;  // (truth, anchor) assignments made
};

// outputs: one raw [N, h, w, A * (5 + classes)] per head (DarknetNetwork's outputs), decoded as
// decode_yolo does; truths[i]: image i's boxes in input pixels with labels in [0, classes).
// Assignment, per truth, as darknet: the anchor shapes of all heads are compared with the truth's
// shape (both centred: IoU of (w, h) against (aw, ah)); the best shape is assigned in every head
// that has it, at the cell holding the truth's centre, and so is any anchor of a head whose shape
// IoU exceeds that head's iou_thresh (darknet's extra assignments; iou_thresh 1, the default,
// makes none). Unlike darknet, the best is taken among the heads' anchors only (darknet drops a
// truth whose best anchor is in no head's mask). Two truths on one anchor: the later one wins.
// An anchor not assigned whose predicted box has IoU > ignore_thresh with some truth of its image
// is ignored by the objectness loss. Each part is summed and divided by the batch size N.
YoloLoss yolo_loss(const std::vector<Tensor>& outputs, const std::vector<YoloHead>& heads,
                   const std::vector<std::vector<LabeledBox>>& truths);

}  // namespace strata::vision
