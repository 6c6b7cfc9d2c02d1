// A kinematic human skeleton of 17 joints in Human3.6M's order, and poses of it sampled within
// per-bone angle limits (docs/pose_lifting.md). Each bone has a rest direction and a length
// (millimetres, near the means of Human3.6M's subjects) and turns, relative to its parent bone,
// by Q = Rz(side) * Rx(flex) * Ry(twist): a twist about the rest axis, a bend forward or back,
// a swing sideways. Axes of the body: x to the subject's left, y up, z forward. A pose is drawn
// uniformly within the limits or from a motion-like family (walking, sitting, arms raised), with
// small jitter, then clamped to the limits, so knees and elbows bend one way only.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace pose {

constexpr int kJoints = 17;
// Human3.6M's 17 joints.
enum Joint : int {
  kHip, kRightHip, kRightKnee, kRightFoot, kLeftHip, kLeftKnee, kLeftFoot, kSpine, kThorax, kNeckNose, kHead,
  kLeftShoulder, kLeftElbow, kLeftWrist, kRightShoulder, kRightElbow, kRightWrist
};
// Each joint's parent (-1: the root); parents come before their children.
inline constexpr std::array<int64_t, kJoints> kParents = {-1, 0, 1, 2, 0, 4, 5, 0, 7, 8, 9, 8, 11, 12, 8, 14, 15};

using Vec3 = std::array<double, 3>;
using Mat3 = std::array<Vec3, 3>;  // rows

inline Vec3 operator*(const Mat3& m, const Vec3& v) {
  return {m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2], m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2],
          m[2][0] * v[0] + m[2][1] * v[1] + m[2][2] * v[2]};
}
inline Mat3 operator*(const Mat3& a, const Mat3& b) {
  Mat3 c{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
  return c;
}
// Rotations by `degrees` about x, y, z (right-handed).
inline Mat3 rotation(int axis, double degrees) {
  const double r = degrees * 3.14159265358979323846 / 180, c = std::cos(r), s = std::sin(r);
  if (axis == 0) return {{{1, 0, 0}, {0, c, -s}, {0, s, c}}};
  if (axis == 1) return {{{c, 0, s}, {0, 1, 0}, {-s, 0, c}}};
  return {{{c, -s, 0}, {s, c, 0}, {0, 0, 1}}};
}

// A joint's angles (degrees) for the bone from its parent: Rx (flex; on a bone hanging down,
// negative swings it forward), Rz (side; positive towards the subject's left), Ry (twist).
struct Angles {
  double flex = 0, side = 0, twist = 0;
};
using Pose = std::array<Angles, kJoints>;  // entry 0 (the root) is unused

struct Limit {
  double lo, hi;
};
struct BoneSpec {
  Vec3 rest;      // unit direction from the parent joint at rest (standing, arms down)
  double length;  // millimetres
  Limit flex, side, twist;
};

// The left side's bones; the right's mirror them (side and twist negated, rest x negated).
inline const std::array<BoneSpec, kJoints>& bones() {
  static const std::array<BoneSpec, kJoints> specs = [] {
    const Limit none{0, 0};
    std::array<BoneSpec, kJoints> b{};
    b[kLeftHip] = {{1, 0, 0}, 132, none, none, none};                         // half the pelvis
    b[kLeftKnee] = {{0, -1, 0}, 442, {-120, 30}, {-15, 45}, {-30, 30}};       // thigh: hip flexion 120
    b[kLeftFoot] = {{0, -1, 0}, 454, {0, 150}, none, none};                   // shank: the knee bends back only
    b[kSpine] = {{0, 1, 0}, 233, {-15, 35}, {-15, 15}, {-20, 20}};            // lower back
    b[kThorax] = {{0, 1, 0}, 257, {-10, 40}, {-15, 15}, {-25, 25}};           // upper back
    const double up = 4 / std::sqrt(17.0), ahead = 1 / std::sqrt(17.0);        // the nose: up, a little ahead
    b[kNeckNose] = {{0, up, ahead}, 121, {-30, 45}, {-30, 30}, {-60, 60}};     // neck: nod, tilt, turn
    b[kHead] = {{0, 1, 0}, 115, none, none, none};
    b[kLeftShoulder] = {{1, 0, 0}, 151, none, {-10, 15}, none};               // collar bone: a shrug
    b[kLeftElbow] = {{0, -1, 0}, 278, {-180, 50}, {-20, 170}, {-80, 80}};     // upper arm
    b[kLeftWrist] = {{0, -1, 0}, 251, {-150, 0}, none, none};                 // forearm: the elbow bends forward only
    const std::array<std::pair<int, int>, 6> mirror = {{{kRightHip, kLeftHip}, {kRightKnee, kLeftKnee},
                                                        {kRightFoot, kLeftFoot}, {kRightShoulder, kLeftShoulder},
                                                        {kRightElbow, kLeftElbow}, {kRightWrist, kLeftWrist}}};
    for (const auto& [right, left] : mirror) {
      b[right] = b[left];
      b[right].rest[0] = -b[left].rest[0];
      b[right].side = {-b[left].side.hi, -b[left].side.lo};
      b[right].twist = {-b[left].twist.hi, -b[left].twist.lo};
    }
    return b;
  }();
  return specs;
}

// Deterministic random numbers from (seed, index): splitmix64, so a pose is the same on every
// platform and standard library.
class PoseRandom {
 public:
  PoseRandom(uint64_t seed, uint64_t index) : state_(mix(seed) ^ mix(index * 0x9E3779B97F4A7C15ull + 1)) {}
  uint64_t next() { return mix(state_ += 0x9E3779B97F4A7C15ull); }
  double uniform(double lo, double hi) { return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double normal() {  // Box-Muller
    const double u = (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53, v = uniform(0, 1);
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * 3.14159265358979323846 * v);
  }

 private:
  static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t state_;
};

enum class Family : int { uniform, walking, sitting, arms_raised };
inline constexpr int kFamilies = 4;
inline const char* family_name(Family f) {
  static const char* names[] = {"uniform", "walking", "sitting", "arms raised"};
  return names[static_cast<int>(f)];
}

// A pose of `family`: its characteristic angles, jitter of 4 degrees on every free angle, all
// clamped to the limits. Left values are given; mirror() gives the right side's.
inline Pose sample_pose(Family family, PoseRandom& rng) {
  Pose p{};
  auto mirror = [](Angles a) { return Angles{a.flex, -a.side, -a.twist}; };
  switch (family) {
    case Family::uniform:
      for (int j = 1; j < kJoints; ++j) {
        const BoneSpec& b = bones()[j];
        p[j] = {rng.uniform(b.flex.lo, b.flex.hi), rng.uniform(b.side.lo, b.side.hi), rng.uniform(b.twist.lo, b.twist.hi)};
      }
      break;
    case Family::walking: {
      // Legs swing in opposition, each knee bends while its leg swings through, arms counter-swing.
      const double phase = rng.uniform(0, 2 * 3.14159265358979323846), stride = rng.uniform(15, 35);
      const double s = std::sin(phase);
      p[kLeftKnee] = {-stride * s, rng.uniform(0, 5), 0};
      p[kRightKnee] = mirror({stride * s, rng.uniform(0, 5), 0});
      p[kLeftFoot] = {5 + 50 * std::max(0.0, std::sin(phase - 0.6)), 0, 0};
      p[kRightFoot] = {5 + 50 * std::max(0.0, -std::sin(phase - 0.6)), 0, 0};
      p[kLeftElbow] = {0.7 * stride * s, rng.uniform(3, 12), rng.uniform(-20, 20)};
      p[kRightElbow] = mirror({-0.7 * stride * s, rng.uniform(3, 12), rng.uniform(-20, 20)});
      p[kLeftWrist].flex = -rng.uniform(10, 45);
      p[kRightWrist].flex = -rng.uniform(10, 45);
      p[kSpine] = {rng.uniform(0, 8), 0, 5 * s};
      p[kNeckNose].flex = rng.uniform(-10, 15);
      break;
    }
    case Family::sitting:
      p[kLeftKnee] = {-rng.uniform(70, 100), rng.uniform(0, 20), rng.uniform(-15, 15)};
      p[kRightKnee] = mirror({-rng.uniform(70, 100), rng.uniform(0, 20), rng.uniform(-15, 15)});
      p[kLeftFoot].flex = rng.uniform(70, 110);
      p[kRightFoot].flex = rng.uniform(70, 110);
      p[kSpine].flex = rng.uniform(-5, 25);
      p[kThorax].flex = rng.uniform(-5, 20);
      p[kLeftElbow] = {-rng.uniform(0, 60), rng.uniform(0, 20), rng.uniform(-30, 30)};
      p[kRightElbow] = mirror({-rng.uniform(0, 60), rng.uniform(0, 20), rng.uniform(-30, 30)});
      p[kLeftWrist].flex = -rng.uniform(30, 100);
      p[kRightWrist].flex = -rng.uniform(30, 100);
      p[kNeckNose] = {rng.uniform(-10, 30), 0, rng.uniform(-40, 40)};
      break;
    case Family::arms_raised: {
      // Standing; each arm overhead (forward and up) or out to the side.
      p[kLeftKnee] = {rng.uniform(-15, 10), rng.uniform(0, 10), 0};
      p[kRightKnee] = mirror({rng.uniform(-15, 10), rng.uniform(0, 10), 0});
      p[kLeftFoot].flex = rng.uniform(0, 20);
      p[kRightFoot].flex = rng.uniform(0, 20);
      for (int elbow : {kLeftElbow, kRightElbow}) {
        const bool overhead = rng.uniform(0, 1) < 0.5;
        const Angles a = overhead ? Angles{-rng.uniform(120, 180), rng.uniform(0, 40), rng.uniform(-40, 40)}
                                  : Angles{rng.uniform(-30, 10), rng.uniform(70, 160), rng.uniform(-40, 40)};
        p[elbow] = elbow == kLeftElbow ? a : mirror(a);
      }
      p[kLeftWrist].flex = -rng.uniform(0, 60);
      p[kRightWrist].flex = -rng.uniform(0, 60);
      p[kSpine].flex = rng.uniform(-10, 10);
      p[kNeckNose].flex = rng.uniform(-30, 10);
      break;
    }
  }
  for (int j = 1; j < kJoints; ++j) {
    const BoneSpec& b = bones()[j];
    auto jitter = [&](double v, Limit l) { return std::clamp(v + (l.hi > l.lo ? 4 * rng.normal() : 0), l.lo, l.hi); };
    p[j] = {jitter(p[j].flex, b.flex), jitter(p[j].side, b.side), jitter(p[j].twist, b.twist)};
  }
  return p;
}

// The joints' positions (millimetres, the root at the origin, body axes) of `pose`, every bone
// length times `scale` (a subject's size).
inline std::array<Vec3, kJoints> joint_positions(const Pose& pose, double scale = 1) {
  std::array<Mat3, kJoints> frame{};
  std::array<Vec3, kJoints> at{};
  frame[0] = rotation(0, 0);
  for (int j = 1; j < kJoints; ++j) {
    const BoneSpec& b = bones()[j];
    const int parent = static_cast<int>(kParents[j]);
    frame[j] = frame[parent] * rotation(2, pose[j].side) * rotation(0, pose[j].flex) * rotation(1, pose[j].twist);
    const Vec3 bone = frame[j] * Vec3{b.rest[0] * b.length * scale, b.rest[1] * b.length * scale, b.rest[2] * b.length * scale};
    for (int k = 0; k < 3; ++k) at[j][k] = at[parent][k] + bone[k];
  }
  return at;
}

}  // namespace pose
