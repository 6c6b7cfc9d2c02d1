#include "strata/vision/detection.hpp"

#include <algorithm>
#include <cmath>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/shape.hpp"
#include "strata/vision/image.hpp"

namespace strata::vision {

Box Letterbox::to_input(const Box& b) const {
  return {b.x1 * scale_x + left, b.y1 * scale_y + top, b.x2 * scale_x + left, b.y2 * scale_y + top};
}

Box Letterbox::to_original(const Box& b) const {
  const double w = static_cast<double>(width), h = static_cast<double>(height);
  auto clip = [](double v, double hi) { return std::clamp(v, 0.0, hi); };
  return {clip((b.x1 - left) / scale_x, w), clip((b.y1 - top) / scale_y, h), clip((b.x2 - left) / scale_x, w),
          clip((b.y2 - top) / scale_y, h)};
}

LetterboxedImage letterbox_at(const Tensor& image, int64_t width, int64_t height, int64_t new_width, int64_t new_height,
                              int64_t left, int64_t top) {
  STRATA_CHECK(image.defined() && image.dim() == 3 && image.size(0) > 0 && image.size(1) > 0,
               "letterbox: expected an HWC image, got ", image.defined() ? image.shape().str() : "undefined");
  STRATA_CHECK(width >= 1 && height >= 1 && new_width >= 1 && new_height >= 1 && left >= 0 && top >= 0 &&
                   left + new_width <= width && top + new_height <= height,
               "letterbox: a ", new_width, " x ", new_height, " image at (", left, ", ", top, ") does not fit in ", width,
               " x ", height);
  const Tensor pixels = image.dtype() == kUInt8 ? cast(image, kFloat32) / 255.0 : cast(image, kFloat32);
  const Tensor resized = resize(pixels, new_height, new_width);
  LetterboxedImage out;
  out.image = pad(resized, {{top, height - top - new_height}, {left, width - left - new_width}, {0, 0}}, PadMode::constant, 0.5);
  out.transform = {static_cast<double>(new_width) / static_cast<double>(image.size(1)),
                   static_cast<double>(new_height) / static_cast<double>(image.size(0)),
                   static_cast<double>(left), static_cast<double>(top), image.size(1), image.size(0)};
  return out;
}

LetterboxedImage letterbox(const Tensor& image, int64_t width, int64_t height) {
  STRATA_CHECK(image.defined() && image.dim() == 3 && image.size(0) > 0 && image.size(1) > 0,
               "letterbox: expected an HWC image, got ", image.defined() ? image.shape().str() : "undefined");
  const double sx = static_cast<double>(width) / static_cast<double>(image.size(1));
  const double sy = static_cast<double>(height) / static_cast<double>(image.size(0));
  int64_t new_width = width, new_height = height;  // darknet: the tighter side fills the canvas
  if (sx < sy)
    new_height = std::max<int64_t>(1, std::min(height, static_cast<int64_t>(static_cast<double>(image.size(0)) * sx)));
  else
    new_width = std::max<int64_t>(1, std::min(width, static_cast<int64_t>(static_cast<double>(image.size(1)) * sy)));
  return letterbox_at(image, width, height, new_width, new_height, (width - new_width) / 2, (height - new_height) / 2);
}

std::vector<std::vector<Detection>> decode_yolo(const std::vector<Tensor>& outputs, const std::vector<YoloHead>& heads,
                                                const DecodeOptions& options) {
  STRATA_CHECK(outputs.size() == heads.size() && !heads.empty(), "decode_yolo: ", outputs.size(), " outputs for ",
               heads.size(), " heads");
  STRATA_CHECK(options.max_detections >= 1 && std::isfinite(options.score_threshold), "decode_yolo: expected max_detections >= 1 and a finite score_threshold");
  const int64_t n = outputs[0].defined() && outputs[0].dim() == 4 ? outputs[0].size(0) : 0;
  std::vector<std::vector<float>> boxes(n), scores(n);
  std::vector<std::vector<int64_t>> classes(n);
  auto sigmoid = [](double v) { return 1 / (1 + std::exp(-v)); };
  for (size_t k = 0; k < heads.size(); ++k) {
    const YoloHead& head = heads[k];
    const Tensor& out = outputs[k];
    const int64_t a = static_cast<int64_t>(head.anchors.size()), per = 5 + head.classes;
    STRATA_CHECK(out.defined() && out.dim() == 4 && out.size(0) == n && out.size(3) == a * per && head.classes >= 1 &&
                     head.stride >= 1,
                 "decode_yolo: head ", k, " expected [", n, ", h, w, ", a * per, "] (", a, " anchors x (5 + ", head.classes,
                 " classes)), got ", out.defined() ? out.shape().str() : "undefined");
    const int64_t gh = out.size(1), gw = out.size(2);
    const std::vector<float> v = cast(out.detach(), kFloat32).contiguous().to_vector<float>();
    const double s = head.scale_x_y, stride = static_cast<double>(head.stride);
    for (int64_t img = 0; img < n; ++img)
      for (int64_t cy = 0; cy < gh; ++cy)
        for (int64_t cx = 0; cx < gw; ++cx)
          for (int64_t an = 0; an < a; ++an) {
            const float* p = v.data() + (((img * gh + cy) * gw + cx) * a + an) * per;
            const double objectness = sigmoid(p[4]);
            if (objectness <= options.score_threshold) continue;
            const double x = (sigmoid(p[0]) * s - (s - 1) / 2 + static_cast<double>(cx)) * stride;
            const double y = (sigmoid(p[1]) * s - (s - 1) / 2 + static_cast<double>(cy)) * stride;
            const double w = std::exp(p[2]) * head.anchors[an].first, h = std::exp(p[3]) * head.anchors[an].second;
            for (int64_t c = 0; c < head.classes; ++c) {
              const double score = objectness * sigmoid(p[5 + c]);
              if (score <= options.score_threshold) continue;
              boxes[img].insert(boxes[img].end(), {static_cast<float>(x - w / 2), static_cast<float>(y - h / 2),
                                                   static_cast<float>(x + w / 2), static_cast<float>(y + h / 2)});
              scores[img].push_back(static_cast<float>(score));
              classes[img].push_back(c);
            }
          }
  }
  std::vector<std::vector<Detection>> result(n);
  for (int64_t img = 0; img < n; ++img) {
    const int64_t m = static_cast<int64_t>(scores[img].size());
    const std::vector<int64_t> kept = batched_nms(from_vector(boxes[img], {m, 4}), from_vector(scores[img], {m}),
                                                  from_vector(classes[img], {m}), options.nms)
                                          .to_vector<int64_t>();
    for (int64_t i : kept) {
      if (static_cast<int64_t>(result[img].size()) == options.max_detections) break;
      const float* b = boxes[img].data() + 4 * i;
      result[img].push_back({{b[0], b[1], b[2], b[3]}, scores[img][i], classes[img][i]});
    }
  }
  return result;
}

}  // namespace strata::vision
