// What a detection model needs beside its weights to be run: its input size, its [yolo] heads
// and its class names, as the JSON that strata_detect_train stores with the model in the hub
// (the version's value "detector") and `strata detect` reads back (docs/detection.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/vision/darknet.hpp"

namespace strata::vision {

struct DetectorDescription {
  int64_t width = 0, height = 0;
  std::vector<YoloHead> heads;
  std::vector<std::string> class_names;  // one per class of the heads
};

// {"width": W, "height": H, "classes": [names], "heads": [{"anchors": [[w, h], ...], "classes": C,
// "stride": S, "scale_x_y": s, "ignore_thresh": t, "iou_normalizer": n, "cls_normalizer": c,
// "iou_thresh": u, "beta_nms": b, "nms_kind": k}, ...]}
std::string detector_json(const DetectorDescription& description);
// Text from outside: at most 64 KiB, 16 heads of 64 anchors, 10000 classes of 256-byte names;
// sizes and strides in [1, 65536], anchors positive; throws strata::Error naming what is wrong.
DetectorDescription parse_detector_json(const std::string& text);

}  // namespace strata::vision
