// Synthetic point-cloud data sets that need no download: a ModelNet-like classification set of
// 12 parametric shape classes and a ShapeNet-part-like set of 5 categories built from labelled
// parts. Each cloud is drawn uniformly over its shape's surface (area-weighted over its parts)
// with random proportions, a random stretch and pose, partial occlusion and noise, and is a pure
// function of (seed, index): any example can be read in any order, on any thread. The defaults
// keep classifiers of global statistics under 75% (docs/pointclouds.md, "Synthetic shapes").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/data/dataset.hpp"

namespace strata::points {

struct SyntheticShapeOptions {
  int64_t points = 1024;     // P, points per cloud
  double max_stretch = 1.4;  // each axis of the shape scaled by a factor in [1 / this, this], log-uniform
  double max_tilt = 0.3;     // radians: after a uniform turn about y (up), tilts about x and z up to this
  double occlusion = 0.7;    // the probability that a cloud loses the points beyond a random plane
  double min_visible = 0.5;  // an occluded cloud keeps a fraction uniform in [min_visible, 1) of its surface
  double noise = 0.01;       // Gaussian sigma per coordinate (clipped at 3 sigma), after normalisation
};

// The 12 classes, by label: ellipsoid, box, cylinder, cone, torus, pyramid, capsule, chair, table,
// lamp, mug, airplane.
const std::vector<std::string>& synthetic_shape_classes();

// `size` examples {points float32 [P, 3], label int64 []}, example i of class i % 12 (balanced).
// Clouds are centred on their centroid and scaled to the unit sphere before the noise.
data::Dataset synthetic_shapes(int64_t size, uint64_t seed, const SyntheticShapeOptions& options = {});

// A category of the part-labelled set: its name and its parts, whose global ids run from
// first_part to first_part + parts.size() - 1.
struct PartCategory {
  std::string name;
  std::vector<std::string> parts;
  int64_t first_part;
};
// chair (seat, back, legs), table (top, legs), lamp (base, pole, shade), mug (body, handle),
// airplane (fuselage, wings, tail): 5 categories, 13 parts.
const std::vector<PartCategory>& synthetic_part_categories();
int64_t synthetic_part_count();  // 13

// `size` examples {points float32 [P, 3], part int64 [P] (global part ids), label int64 []
// (category)}, example i of category i % 5.
data::Dataset synthetic_part_shapes(int64_t size, uint64_t seed, const SyntheticShapeOptions& options = {});

}  // namespace strata::points
