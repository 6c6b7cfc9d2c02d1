// The 2-D -> 3-D pose-lifting data (docs/pose_lifting.md): a pose of the kinematic skeleton
// (skeleton.hpp) from one of the four families, scaled to a subject's size, turned about the
// vertical by a random angle and seen by a random pinhole camera (distance, elevation, focal
// length) aimed at the hip. The targets are the joints in the camera's frame relative to the
// hip (metres; x right, y up, z away from the camera); the inputs are the projected key points,
// optionally with Gaussian noise in pixels, normalised as LCN's pipeline does: relative to the
// hip and divided by their root-mean-square distance from it. Sample k of a seed is the same
// whatever else is drawn.
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include <strata/strata.hpp>

#include "skeleton.hpp"

namespace pose {

struct CameraRanges {
  double distance_lo = 3500, distance_hi = 6500;  // millimetres from the hip
  double elevation_lo = -5, elevation_hi = 35;    // degrees above the hip's horizontal
  double focal_lo = 900, focal_hi = 1500;         // pixels
  double size_lo = 0.92, size_hi = 1.08;          // the subject's size: bone lengths times this
};

struct LiftingSample {
  Family family;
  std::array<Vec3, kJoints> joints;                  // camera frame, hip-relative, metres
  std::array<std::array<double, 2>, kJoints> points;  // normalised key points
};

inline LiftingSample lifting_sample(uint64_t seed, uint64_t index, double noise_px, const CameraRanges& c = {}) {
  PoseRandom rng(seed, index);
  LiftingSample s;
  s.family = static_cast<Family>(rng.next() % kFamilies);
  const Pose p = sample_pose(s.family, rng);
  const std::array<Vec3, kJoints> body = joint_positions(p, rng.uniform(c.size_lo, c.size_hi));
  // Body -> camera: the turn about the vertical, then the camera's tilt down by its elevation.
  const Mat3 to_camera = rotation(0, -rng.uniform(c.elevation_lo, c.elevation_hi)) * rotation(1, rng.uniform(0, 360));
  const double distance = rng.uniform(c.distance_lo, c.distance_hi), focal = rng.uniform(c.focal_lo, c.focal_hi);
  std::array<std::array<double, 2>, kJoints> pixels{};
  for (int j = 0; j < kJoints; ++j) {
    const Vec3 v = to_camera * body[j];
    for (int k = 0; k < 3; ++k) s.joints[j][k] = v[k] / 1000;
    const double depth = distance + v[2];  // the hip sits on the optical axis
    for (int k = 0; k < 2; ++k) pixels[j][k] = focal * v[k] / depth + noise_px * rng.normal();
  }
  double squares = 0;
  for (int j = 0; j < kJoints; ++j)
    for (int k = 0; k < 2; ++k) squares += std::pow(pixels[j][k] - pixels[0][k], 2);
  const double scale = std::sqrt(squares / kJoints);
  for (int j = 0; j < kJoints; ++j)
    for (int k = 0; k < 2; ++k) s.points[j][k] = (pixels[j][k] - pixels[0][k]) / scale;
  return s;
}

// Samples first .. first + count - 1 of `seed` as float tensors: key points [count, 17, 2] and
// joints [count, 17, 3].
struct LiftingSet {
  strata::Tensor points, joints;
  std::vector<Family> families;
};
inline LiftingSet lifting_set(uint64_t seed, int64_t first, int64_t count, double noise_px) {
  std::vector<float> points, joints;
  points.reserve(count * kJoints * 2);
  joints.reserve(count * kJoints * 3);
  LiftingSet set;
  for (int64_t i = 0; i < count; ++i) {
    const LiftingSample s = lifting_sample(seed, static_cast<uint64_t>(first + i), noise_px);
    set.families.push_back(s.family);
    for (int j = 0; j < kJoints; ++j) {
      points.insert(points.end(), s.points[j].begin(), s.points[j].end());
      joints.insert(joints.end(), s.joints[j].begin(), s.joints[j].end());
    }
  }
  set.points = strata::from_vector(points, {count, kJoints, 2});
  set.joints = strata::from_vector(joints, {count, kJoints, 3});
  return set;
}

}  // namespace pose
