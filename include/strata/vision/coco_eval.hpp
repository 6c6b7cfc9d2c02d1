// COCO-style detection metrics, computed as pycocotools' COCOeval does for boxes (iouType
// "bbox"), area range "all", no crowd annotations: AP averaged over IoU thresholds
// .50:.05:.95, AP at .50 and .75, with 101-point interpolated precision, and recall.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/vision/boxes.hpp"

namespace strata::vision {

struct CocoMetrics {
  double ap = -1;    // AP@[.5:.95]; -1 when no class has a ground-truth box (pycocotools' -1)
  double ap50 = -1;  // AP at IoU .50
  double ap75 = -1;  // AP at IoU .75
  double ar = -1;    // AR@[.5:.95] with max_dets detections per image
};

// detections[i] and truths[i] belong to image i (the two lists have one entry per image; an
// image may have neither). Labels are classes in [0, classes); a class with no ground-truth box
// counts in no average. Per image and class, only the max_dets highest-scoring detections count
// (pycocotools' maxDets, 100 by default); equal scores keep the order given. Matching follows
// COCOeval: detections by decreasing score, each matched to the unmatched ground truth of its
// class with the highest IoU >= the threshold (the later one on equal IoU), IoU on the boxes'
// (x, y, w, h) as pycocotools computes it.
CocoMetrics coco_evaluate(const std::vector<std::vector<Detection>>& detections,
                          const std::vector<std::vector<LabeledBox>>& truths, int64_t classes, int64_t max_dets = 100);

}  // namespace strata::vision
