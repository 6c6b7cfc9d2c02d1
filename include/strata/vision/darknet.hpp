// Darknet's network files read into Strata: a .cfg (the layer list) becomes a static nn::Model
// and a .weights file fills it, so YOLOv4 and YOLOv4-tiny as AlexeyAB/darknet publishes them run,
// train, save whole and export to ONNX like any Strata model (docs/darknet.md).
//
//   auto net = vision::read_darknet_cfg("yolov4-tiny.cfg", {.width = 416, .height = 416});
//   vision::load_darknet_weights(net, "yolov4-tiny.weights");
//   auto outputs = net.model->run({images});  // one raw [N, h, w, A * (5 + C)] per [yolo]
//
// The model takes NHWC float images in [0, 1]; each output is the conv before a [yolo] layer,
// not yet activated: decoding into boxes (sigmoid, scale_x_y, anchors) belongs to the detection
// helpers, which read what they need from `heads`.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "strata/nn/model.hpp"

namespace strata::vision {

// One [yolo] layer of the cfg: what decoding and the loss need.
struct YoloHead {
  std::vector<std::pair<double, double>> anchors;  // (w, h) in input pixels, the ones this head's mask picks
  int64_t classes = 0;
  int64_t stride = 0;      // input pixels per cell of this head's grid
  double scale_x_y = 1.0;  // darknet's scale_x_y
  double ignore_thresh = 0.7, iou_normalizer = 0.07, cls_normalizer = 1.0;  // as in the cfg (darknet's defaults otherwise)
  // Also from the cfg, for the loss and the NMS that want them (darknet's defaults otherwise):
  double iou_thresh = 1.0;   // extra anchors assigned above this IoU (darknet: 1, none)
  double beta_nms = 0.6;     // DIoU-NMS's beta
  std::string nms_kind = "default";  // "default", "greedynms", "diounms" or "cornersnms"
};

// 0 keeps the cfg's value; classes also rewrites the filters of the conv before each [yolo] to
// (classes + 5) * anchors, as users of darknet do by hand.
struct DarknetOptions {
  int64_t width = 0, height = 0, classes = 0;
  // A cfg whose weights would pass this many parameters is refused before anything is
  // allocated (YOLOv4 has 64M).
  int64_t max_parameters = int64_t{1} << 28;
};

struct DarknetNetwork {
  // Static model: input [N, height, width, channels] NHWC float in [0, 1]; one output per [yolo]
  // layer, in cfg order: the raw conv output [N, h, w, anchors * (5 + classes)] (x, y, w, h,
  // objectness, classes per anchor, not yet activated).
  std::shared_ptr<nn::Model> model;
  std::vector<YoloHead> heads;
  int64_t width = 0, height = 0, channels = 0;
  // The model's layer names of the [convolutional] sections, in cfg order, and whether each has
  // batch norm: the order and layout the .weights file follows.
  std::vector<std::string> conv_layers;
  std::vector<bool> conv_batch_normalize;
};

// Throws strata::Error naming the line for an unknown section or key, a bad value, a route or
// shortcut index out of range, or shapes that do not fit.
DarknetNetwork read_darknet_cfg(const std::string& path, const DarknetOptions& options = {});
DarknetNetwork parse_darknet_cfg(std::string_view text, const DarknetOptions& options = {});  // same from text

// Darknet's .weights layout: header (major, minor, revision as int32, then `seen` as int64 when
// major * 10 + minor >= 2, else int32), then per [convolutional] in cfg order: with batch norm
// biases, scales, rolling mean, rolling variance, weights [filters, channels / groups, size,
// size]; without it biases, weights. A file shorter or longer than the cfg needs is refused.
void load_darknet_weights(const DarknetNetwork& net, const std::string& path);
void save_darknet_weights(const DarknetNetwork& net, const std::string& path);  // the same layout, for round trips and users going back to darknet

}  // namespace strata::vision
