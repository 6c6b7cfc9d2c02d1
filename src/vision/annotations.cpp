// Boxes and key points through the geometric transforms. Each transform is a map of edge
// coordinates applied to points; boxes take the bounding box of their moved corners.
#include "strata/vision/annotations.hpp"

#include <algorithm>

#include "image_common.hpp"

namespace strata::vision {

namespace {

// The bounding box of the box's four corners moved by `move`, clipped to [0, width] x [0, height].
template <class Move>
Box move_box(const Box& b, Move move, double width, double height) {
  const Point corners[4] = {move({b.x1, b.y1}), move({b.x2, b.y1}), move({b.x1, b.y2}), move({b.x2, b.y2})};
  Box r{corners[0].x, corners[0].y, corners[0].x, corners[0].y};
  for (const Point& c : corners) {
    r.x1 = std::min(r.x1, c.x), r.x2 = std::max(r.x2, c.x);
    r.y1 = std::min(r.y1, c.y), r.y2 = std::max(r.y2, c.y);
  }
  return {std::clamp(r.x1, 0.0, width), std::clamp(r.y1, 0.0, height), std::clamp(r.x2, 0.0, width),
          std::clamp(r.y2, 0.0, height)};
}

// `move` applied to every point and box of `in`, alongside the already transformed image.
template <class Move>
AnnotatedImage move_annotations(const AnnotatedImage& in, Tensor image, Move move) {
  const auto w = static_cast<double>(image.size(1)), h = static_cast<double>(image.size(0));
  AnnotatedImage out{std::move(image), {}, {}};
  out.points.reserve(in.points.size());
  for (const Point& p : in.points) out.points.push_back(move(p));
  out.boxes.reserve(in.boxes.size());
  for (const Box& b : in.boxes) out.boxes.push_back(move_box(b, move, w, h));
  return out;
}

void check_boxes(const AnnotatedImage& in, const char* op) {
  detail::check_image(in.image, op);
  for (size_t i = 0; i < in.boxes.size(); ++i) {
    const Box& b = in.boxes[i];
    STRATA_CHECK(b.x1 <= b.x2 && b.y1 <= b.y2, op, ": expected box ", i, " as [x1, y1, x2, y2] with x1 <= x2 and ",
                 "y1 <= y2, got [", b.x1, ", ", b.y1, ", ", b.x2, ", ", b.y2, "]");
  }
}

AnnotatedImage crop_annotated(const AnnotatedImage& in, const detail::CropWindow& window) {
  const auto top = static_cast<double>(window.top), left = static_cast<double>(window.left);
  return move_annotations(in, detail::crop(in.image, window), [=](Point p) { return Point{p.x - left, p.y - top}; });
}

}  // namespace

Point transform_point(const Point& p, const Affine& t, int64_t height, int64_t width) {
  // affine_transform maps pixel indices about ((W - 1) / 2, (H - 1) / 2); edge coordinates are
  // indices + 0.5, so here the centre is (W / 2, H / 2).
  const double cx = static_cast<double>(width) / 2, cy = static_cast<double>(height) / 2;
  const double x = p.x - cx, y = p.y - cy;
  return {t.a * x + t.b * y + t.c + cx, t.d * x + t.e * y + t.f + cy};
}

Box transform_box(const Box& box, const Affine& t, int64_t height, int64_t width) {
  return move_box(box, [&](Point p) { return transform_point(p, t, height, width); }, static_cast<double>(width),
                  static_cast<double>(height));
}

AnnotatedImage flip_left_right(const AnnotatedImage& in) {
  check_boxes(in, "flip_left_right");
  const auto w = static_cast<double>(in.image.size(1));
  return move_annotations(in, flip_left_right(in.image), [w](Point p) { return Point{w - p.x, p.y}; });
}

AnnotatedImage flip_up_down(const AnnotatedImage& in) {
  check_boxes(in, "flip_up_down");
  const auto h = static_cast<double>(in.image.size(0));
  return move_annotations(in, flip_up_down(in.image), [h](Point p) { return Point{p.x, h - p.y}; });
}

AnnotatedImage rot90(const AnnotatedImage& in, int k) {
  check_boxes(in, "rot90");
  const int turns = ((k % 4) + 4) % 4;
  const auto h = static_cast<double>(in.image.size(0)), w = static_cast<double>(in.image.size(1));
  // One counter-clockwise quarter turn of a W-wide image: (x, y) -> (y, W - x), and the width
  // and height swap for the next turn.
  return move_annotations(in, rot90(in.image, k), [=](Point p) {
    double width = w, height = h;
    for (int i = 0; i < turns; ++i) {
      p = {p.y, width - p.x};
      std::swap(width, height);
    }
    return p;
  });
}

AnnotatedImage affine_transform(const AnnotatedImage& in, const Affine& t, Interpolation mode, double fill) {
  check_boxes(in, "affine_transform");
  const int64_t h = in.image.size(0), w = in.image.size(1);
  return move_annotations(in, affine_transform(in.image, t, mode, fill),
                          [&](Point p) { return transform_point(p, t, h, w); });
}

AnnotatedImage central_crop(const AnnotatedImage& in, int64_t height, int64_t width) {
  check_boxes(in, "central_crop");
  return crop_annotated(in, detail::central_crop_window(in.image, height, width, "central_crop"));
}

AnnotatedImage random_crop(const AnnotatedImage& in, int64_t height, int64_t width, Generator& gen) {
  check_boxes(in, "random_crop");
  return crop_annotated(in, detail::random_crop_window(in.image, height, width, gen, "random_crop"));
}

AnnotatedImage resize(const AnnotatedImage& in, int64_t height, int64_t width, Interpolation mode) {
  check_boxes(in, "resize");
  // Pixel centres aligned: edges scale by the size ratio.
  const double sx = static_cast<double>(width) / static_cast<double>(in.image.size(1));
  const double sy = static_cast<double>(height) / static_cast<double>(in.image.size(0));
  return move_annotations(in, resize(in.image, height, width, mode), [=](Point p) { return Point{p.x * sx, p.y * sy}; });
}

}  // namespace strata::vision
