// From an image to detections with a YOLO network: letterboxing (darknet's letterbox_image) and
// back, and decoding the raw outputs of the [yolo] heads (darknet.hpp's DarknetNetwork) into
// boxes, scores and classes with a score threshold and NMS.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/core/tensor.hpp"
#include "strata/vision/boxes.hpp"
#include "strata/vision/darknet.hpp"
#include "strata/vision/nms.hpp"

namespace strata::vision {

// Where an image sits inside the network's input: x' = x * scale_x + left, y' = y * scale_y + top,
// the original being `width` x `height` pixels (pixel-edge coordinates, Box's).
struct Letterbox {
  double scale_x = 1, scale_y = 1, left = 0, top = 0;
  int64_t width = 0, height = 0;
  Box to_input(const Box& b) const;
  // Back to the original image, clipped to it.
  Box to_original(const Box& b) const;
};

struct LetterboxedImage {
  Tensor image;  // float32 [height, width, C] in [0, 1]
  Letterbox transform;
};

// image HWC uint8 (scaled by 1/255) or float in [0, 1] -> float32 [height, width, C]: resized
// (bilinear) to fit keeping its aspect, centred, the rest 0.5 grey as in darknet.
LetterboxedImage letterbox(const Tensor& image, int64_t width, int64_t height);
// The same with the placement chosen: the image resized to new_width x new_height at (left, top),
// which must lie inside the canvas (training's letterbox jitter draws these).
LetterboxedImage letterbox_at(const Tensor& image, int64_t width, int64_t height, int64_t new_width, int64_t new_height,
                              int64_t left, int64_t top);

struct DecodeOptions {
  double score_threshold = 0.25;  // darknet's -thresh: on objectness, then on objectness * class
  NmsOptions nms{};               // class-wise
  int64_t max_detections = 100;   // per image, the best scores
};

// outputs: one raw tensor per head [N, h, w, A * (5 + classes)] (DarknetNetwork's outputs) ->
// per image, the detections in input pixels, by decreasing score. Per cell (column cx, row cy)
// and anchor (aw, ah), as darknet's yolo layer: x = (sigmoid(tx) * s - (s - 1) / 2 + cx) * stride,
// likewise y, w = exp(tw) * aw, h = exp(th) * ah (s = scale_x_y), objectness sigmoid(to), the score
// of class k objectness * sigmoid(tk); one detection per class above the threshold.
std::vector<std::vector<Detection>> decode_yolo(const std::vector<Tensor>& outputs, const std::vector<YoloHead>& heads,
                                                const DecodeOptions& options = {});

}  // namespace strata::vision
