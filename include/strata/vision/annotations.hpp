// Bounding boxes and key points carried through the geometric transforms together with their
// image, so that the labels follow the pixels.
#pragma once
#include <vector>

#include "strata/core/factory.hpp"
#include "strata/core/tensor.hpp"
#include "strata/vision/image.hpp"

namespace strata::vision {

// Coordinates are in pixel edges: an H x W image spans [0, W] x [0, H], pixel (row r, column c)
// covers [c, c + 1) x [r, r + 1), its centre is (c + 0.5, r + 0.5). x is the column, y the row.
struct Box {
  double x1 = 0, y1 = 0, x2 = 0, y2 = 0;  // x1 <= x2, y1 <= y2
  bool empty() const { return x2 <= x1 || y2 <= y1; }
};
struct Point {
  double x = 0, y = 0;
};

// One HWC image with its boxes and key points. The transforms keep the lists' order and length:
// a box moved wholly outside the image becomes empty (zero width or height) rather than being
// dropped, so it still lines up with its label; key points are not clipped (check them against
// the image size if that matters).
struct AnnotatedImage {
  Tensor image;
  std::vector<Box> boxes;
  std::vector<Point> points;
};

// Where `transform` (as affine_transform applies it to an H x W image) takes a point; a box
// becomes the bounding box of its four moved corners, clipped to the image.
Point transform_point(const Point& p, const Affine& transform, int64_t height, int64_t width);
Box transform_box(const Box& box, const Affine& transform, int64_t height, int64_t width);

AnnotatedImage flip_left_right(const AnnotatedImage& in);
AnnotatedImage flip_up_down(const AnnotatedImage& in);
AnnotatedImage rot90(const AnnotatedImage& in, int k = 1);
// Rotation, shift, zoom, shear and their combinations (one matrix, one resampling).
AnnotatedImage affine_transform(const AnnotatedImage& in, const Affine& transform,
                                Interpolation mode = Interpolation::bilinear, double fill = 0);
AnnotatedImage central_crop(const AnnotatedImage& in, int64_t height, int64_t width);
// The same window random_crop(image, height, width, gen) would cut with this generator.
AnnotatedImage random_crop(const AnnotatedImage& in, int64_t height, int64_t width,
                           Generator& gen = default_generator());
AnnotatedImage resize(const AnnotatedImage& in, int64_t height, int64_t width,
                      Interpolation mode = Interpolation::bilinear);

}  // namespace strata::vision
