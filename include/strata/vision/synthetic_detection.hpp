// A detection data set generated here, needing no download: RGB images of several objects of 5
// shape classes (each in a random colour and texture, of varied size, partly occluding one
// another) on a textured, cluttered background, with their boxes and classes. Each example is a
// pure function of (seed, index), so any example can be read in any order, on any thread
// (docs/detection.md, "The data set").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/data/dataset.hpp"
#include "strata/vision/boxes.hpp"

namespace strata::vision {

struct SyntheticDetectionOptions {
  int64_t image_size = 128;   // S: images are S x S
  int64_t min_objects = 1;    // objects per image, uniform in [min_objects, max_objects]
  int64_t max_objects = 4;    // also M, the length of the padded box list
  double min_size = 0.12;     // an object's larger side, as a fraction of S, uniform in [min, max]
  double max_size = 0.45;
  double max_occlusion = 0.4; // a later object covers at most this fraction of an earlier one's box
  int64_t clutter = 10;       // background distractors (lines, dots, small blobs) per image
  double noise = 0.03;        // Gaussian pixel noise sigma
};

// The 5 classes, by label: circle, square, triangle, cross, ring.
const std::vector<std::string>& synthetic_detection_classes();

// `size` examples {image float32 [S, S, 3] in [0, 1], boxes float32 [M, 4] (x1, y1, x2, y2, the
// tight box of each object's pixels, pixel-edge coordinates), labels int64 [M]}: the first K
// entries are the K objects in drawing order, the rest padding (label -1, box 0), so examples
// batch. An object drawn later may hide part of an earlier one, never more than max_occlusion of
// its box.
data::Dataset synthetic_detection(int64_t size, uint64_t seed, const SyntheticDetectionOptions& options = {});

// The objects of one example's (boxes [M, 4], labels [M]): the entries with a label >= 0.
std::vector<LabeledBox> labeled_boxes(const Tensor& boxes, const Tensor& labels);

}  // namespace strata::vision
