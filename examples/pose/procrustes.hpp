// The pose-lifting errors (docs/pose_lifting.md), in millimetres: MPJPE, the mean distance between
// predicted and true joints once both are hip-relative, and PA-MPJPE, the same after the
// prediction is moved onto the truth by the best similarity (rotation, scale, translation;
// Procrustes). The rotation is Horn's (1987): the unit quaternion that is the eigenvector of the
// largest eigenvalue of a symmetric 4 x 4 matrix of the cross-covariance, so it is always a
// rotation, never a reflection.
#pragma once
#include <array>
#include <cmath>
#include <utility>

#include "skeleton.hpp"

namespace pose {

using Joints = std::array<Vec3, kJoints>;

inline double distance(const Vec3& a, const Vec3& b) {
  return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

// Mean joint distance (the inputs' units times 1000: metres in, millimetres out), both poses
// made relative to their own hip.
inline double mpjpe_mm(const Joints& predicted, const Joints& truth) {
  double total = 0;
  for (int j = 0; j < kJoints; ++j) {
    Vec3 p, t;
    for (int k = 0; k < 3; ++k) p[k] = predicted[j][k] - predicted[0][k], t[k] = truth[j][k] - truth[0][k];
    total += distance(p, t);
  }
  return 1000 * total / kJoints;
}

// The eigenvector of the largest eigenvalue of symmetric `a`, by cyclic Jacobi rotations.
inline std::array<double, 4> largest_eigenvector(std::array<std::array<double, 4>, 4> a) {
  std::array<std::array<double, 4>, 4> v{};
  for (int i = 0; i < 4; ++i) v[i][i] = 1;
  for (int sweep = 0; sweep < 50; ++sweep) {
    double off = 0;
    for (int p = 0; p < 4; ++p)
      for (int q = p + 1; q < 4; ++q) off += a[p][q] * a[p][q];
    if (off < 1e-30) break;
    for (int p = 0; p < 4; ++p)
      for (int q = p + 1; q < 4; ++q) {
        if (std::abs(a[p][q]) < 1e-300) continue;
        const double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
        const double t = (theta >= 0 ? 1 : -1) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < 4; ++k) {  // a = J^T a J, columns then rows
          const double akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - s * akq, a[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 4; ++k) {
          const double apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - s * aqk, a[q][k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 4; ++k) {
          const double vkp = v[k][p], vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq, v[k][q] = s * vkp + c * vkq;
        }
      }
  }
  int best = 0;
  for (int i = 1; i < 4; ++i)
    if (a[i][i] > a[best][best]) best = i;
  return {v[0][best], v[1][best], v[2][best], v[3][best]};
}

// MPJPE after the best similarity transform of `predicted` onto `truth`.
inline double pa_mpjpe_mm(const Joints& predicted, const Joints& truth) {
  Vec3 mp{}, mt{};
  for (int j = 0; j < kJoints; ++j)
    for (int k = 0; k < 3; ++k) mp[k] += predicted[j][k] / kJoints, mt[k] += truth[j][k] / kJoints;
  Joints p, t;
  double s[3][3] = {}, norm = 0;
  for (int j = 0; j < kJoints; ++j) {
    for (int k = 0; k < 3; ++k) p[j][k] = predicted[j][k] - mp[k], t[j][k] = truth[j][k] - mt[k];
    for (int a = 0; a < 3; ++a) {
      norm += p[j][a] * p[j][a];
      for (int b = 0; b < 3; ++b) s[a][b] += p[j][a] * t[j][b];
    }
  }
  if (norm == 0) return mpjpe_mm(predicted, truth);
  const std::array<std::array<double, 4>, 4> n = {{
      {s[0][0] + s[1][1] + s[2][2], s[1][2] - s[2][1], s[2][0] - s[0][2], s[0][1] - s[1][0]},
      {s[1][2] - s[2][1], s[0][0] - s[1][1] - s[2][2], s[0][1] + s[1][0], s[2][0] + s[0][2]},
      {s[2][0] - s[0][2], s[0][1] + s[1][0], -s[0][0] + s[1][1] - s[2][2], s[1][2] + s[2][1]},
      {s[0][1] - s[1][0], s[2][0] + s[0][2], s[1][2] + s[2][1], -s[0][0] - s[1][1] + s[2][2]},
  }};
  const auto [w, x, y, z] = largest_eigenvector(n);
  const Mat3 r = {{{w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)},
                   {2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)},
                   {2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z}}};
  double fit = 0;
  Joints aligned;
  for (int j = 0; j < kJoints; ++j) {
    aligned[j] = r * p[j];
    for (int k = 0; k < 3; ++k) fit += aligned[j][k] * t[j][k];
  }
  const double scale = fit / norm;
  double total = 0;
  for (int j = 0; j < kJoints; ++j) {
    for (int k = 0; k < 3; ++k) aligned[j][k] *= scale;
    total += distance(aligned[j], t[j]);
  }
  return 1000 * total / kJoints;
}

}  // namespace pose
