// Point-cloud augmentation as PointNet and PointNet++ train with it: rotations, scaling, jitter,
// translation, point dropout, shuffling and unit-sphere normalisation of one cloud, and an
// Augmentation pipeline that runs them on a data set's examples, keeping per-point labels with
// their points.
//
// A cloud is float32 [P, 3 + F]: x, y, z, then F features. With `normals`, columns 3..5 are unit
// normals: rotations turn them with the points and scaling keeps them normal to the scaled
// surface; the other features are carried unchanged. Randomness comes from the engine passed in
// (a strata::Generator's engine(), or any std::mt19937_64): the same state, the same result.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "strata/core/tensor.hpp"
#include "strata/data/example.hpp"

namespace strata::points {

// An engine seeded from (seed, key) through std::seed_seq: one independent, reproducible stream
// per example of a data set (key = its index) or per call of an Augmentation.
std::mt19937_64 keyed_engine(uint64_t seed, uint64_t key);

// A 3 x 3 rotation matrix, row-major: p' = R p.
using Rotation = std::array<double, 9>;

// The right-handed rotation by `angle` radians about axis 0 (x), 1 (y, ModelNet's up) or 2 (z).
Rotation axis_rotation(double angle, int axis = 1);
// A rotation uniform over SO(3): the rotation of a uniformly random unit quaternion (four normal
// draws, normalised).
Rotation random_rotation(std::mt19937_64& rng);

// cloud with its points (and normals) turned by R.
Tensor rotate(const Tensor& cloud, const Rotation& r, bool normals = false);
// PointNet's rotate_point_cloud: an angle uniform in [0, 2 pi) about `axis` (y: upright shapes
// stay upright).
Tensor random_rotate_about_axis(const Tensor& cloud, std::mt19937_64& rng, int axis = 1, bool normals = false);
// A rotation uniform over SO(3) (random_rotation).
Tensor random_rotate(const Tensor& cloud, std::mt19937_64& rng, bool normals = false);
// Each axis scaled by its own factor, uniform in [low, high] (anisotropic). Normals n become
// S^-1 n, renormalised: the normal of the scaled surface.
Tensor random_scale(const Tensor& cloud, std::mt19937_64& rng, double low = 0.8, double high = 1.25,
                    bool normals = false);
// PointNet's jitter_point_cloud: each coordinate plus clip(sigma * N(0, 1), -clip, clip).
Tensor jitter(const Tensor& cloud, std::mt19937_64& rng, double sigma = 0.01, double clip = 0.05);
// PointNet++'s shift_point_cloud: the cloud moved by a vector uniform in [-range, range]^3.
Tensor random_translate(const Tensor& cloud, std::mt19937_64& rng, double range = 0.1);
// Centred on its centroid and scaled so the farthest point is at distance 1 (PointNet++'s
// pc_normalize); a cloud of one repeated point is only centred. Normals are unchanged.
Tensor normalize_unit_sphere(const Tensor& cloud);

// A cloud whose row i is the input's row rows[i]: the result of dropout and shuffling. Per-point
// labels [P, ...] follow with index_select(labels, 0, from_vector(rows)).
struct PointRows {
  Tensor cloud;
  std::vector<int64_t> rows;
};
// PointNet++'s random_point_dropout: a ratio uniform in [0, max_ratio), then each point dropped
// with that probability and replaced by the first point, so the cloud keeps its P rows (and
// max-pooled features ignore the drop). Dropped rows have rows[i] == 0 (and i > 0).
PointRows random_dropout(const Tensor& cloud, std::mt19937_64& rng, double max_ratio = 0.875);
// The points in a uniformly random order.
PointRows shuffle_points(const Tensor& cloud, std::mt19937_64& rng);

// A chain of the steps above, applied in the order they were added, for Dataset::map:
//
//   data::Dataset train = synthetic_shapes(9840, 1).map(
//       points::Augmentation(7).rotate_about_axis().scale(0.8, 1.25).jitter().shuffle());
//
// An example is {points [P, 3 + F], then any tensors}; those after the points whose first axis
// has P rows (a part label [P], per-point labels [P, K]) are per-point and follow dropout and
// shuffling; the others (a class label) are left as they are.
class Augmentation {
 public:
  explicit Augmentation(uint64_t seed, bool normals = false);

  Augmentation& rotate_about_axis(int axis = 1);
  Augmentation& rotate_so3();
  Augmentation& scale(double low = 0.8, double high = 1.25);
  Augmentation& jitter(double sigma = 0.01, double clip = 0.05);
  Augmentation& translate(double range = 0.1);
  Augmentation& dropout(double max_ratio = 0.875);
  Augmentation& shuffle();
  Augmentation& normalize();

  // The steps with draws seeded from (seed, key): the same key, the same result.
  data::Example apply(data::Example example, uint64_t key) const;
  // As a map function: the n-th call (counted across copies of this object) uses key n, so every
  // epoch draws afresh and a single-threaded pass is reproducible. With map threads > 1 the
  // draws are the same set but which example gets which can vary; call apply with the example's
  // own key to pin them.
  data::Example operator()(data::Example example) const;

 private:
  struct State {
    Tensor cloud;
    std::vector<int64_t> rows;  // the input row of each current row
  };
  using Step = std::function<void(State&, std::mt19937_64&)>;
  Augmentation& add(Step step);

  uint64_t seed_;
  bool normals_;
  std::vector<Step> steps_;
  std::shared_ptr<std::atomic<uint64_t>> calls_;
};

}  // namespace strata::points
