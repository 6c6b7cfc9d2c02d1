// The pose-lifting data and errors of examples/pose (docs/pose_lifting.md): samples depend only
// on (seed, index); sampled angles stay in their limits and bones keep their lengths; the key
// points are the camera's projection, hip-relative at unit scale; MPJPE and PA-MPJPE against
// transforms whose errors are known.
#include <gtest/gtest.h>

#include <cmath>

#include "pose/pose_data.hpp"
#include "pose/procrustes.hpp"

namespace {

using namespace pose;

double pose_test_angle_degrees(const Vec3& a, const Vec3& b) {
  const double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  return std::acos(std::clamp(dot / (distance(a, {}) * distance(b, {})), -1.0, 1.0)) * 180 / 3.14159265358979323846;
}

Vec3 pose_test_bone(const std::array<Vec3, kJoints>& at, int child) {
  const Vec3& p = at[kParents[child]];
  return {at[child][0] - p[0], at[child][1] - p[1], at[child][2] - p[2]};
}

TEST(PoseData, SamplesDependOnlyOnSeedAndIndex) {
  const LiftingSample a = lifting_sample(3, 7, 2), again = lifting_sample(3, 7, 2), next = lifting_sample(3, 8, 2);
  EXPECT_EQ(a.points, again.points);
  EXPECT_EQ(a.joints, again.joints);
  EXPECT_NE(a.points, next.points);
  EXPECT_NE(a.points, lifting_sample(4, 7, 2).points);
  // A set's rows are the samples of their indices, whatever the set's first index.
  const LiftingSet set = lifting_set(3, 5, 4, 2);
  const std::vector<float> points = set.points.to_vector<float>();
  for (int j = 0; j < kJoints; ++j)
    for (int k = 0; k < 2; ++k) EXPECT_EQ(points[(2 * kJoints + j) * 2 + k], static_cast<float>(a.points[j][k]));
}

TEST(PoseData, AnglesStayInTheirLimitsAndBonesKeepTheirLengths) {
  PoseRandom rng(11, 0);
  std::array<int, kFamilies> seen{};
  for (int i = 0; i < 2000; ++i) {
    const Family family = static_cast<Family>(i % kFamilies);
    const Pose p = sample_pose(family, rng);
    for (int j = 1; j < kJoints; ++j) {
      const BoneSpec& b = bones()[j];
      ASSERT_TRUE(p[j].flex >= b.flex.lo && p[j].flex <= b.flex.hi) << "joint " << j << " flex " << p[j].flex;
      ASSERT_TRUE(p[j].side >= b.side.lo && p[j].side <= b.side.hi) << "joint " << j << " side " << p[j].side;
      ASSERT_TRUE(p[j].twist >= b.twist.lo && p[j].twist <= b.twist.hi) << "joint " << j << " twist " << p[j].twist;
    }
    const auto at = joint_positions(p, 1.05);
    EXPECT_EQ(at[kHip], (Vec3{0, 0, 0}));
    for (int j = 1; j < kJoints; ++j) ASSERT_NEAR(distance(pose_test_bone(at, j), {}), bones()[j].length * 1.05, 1e-9);
    // Knees and elbows bend one way, at most 150 degrees: the shank (forearm) turns from the
    // thigh (upper arm) backwards (forwards), measured on the joints' positions.
    for (const auto& [upper, lower] : {std::pair{kLeftKnee, kLeftFoot}, std::pair{kRightKnee, kRightFoot},
                                       std::pair{kLeftElbow, kLeftWrist}, std::pair{kRightElbow, kRightWrist}})
      ASSERT_LE(pose_test_angle_degrees(pose_test_bone(at, upper), pose_test_bone(at, lower)), 150 + 1e-6);
    ++seen[static_cast<int>(family)];
  }
  // Standing straight (all angles 0), a knee bent by 90 degrees puts the foot behind the knee.
  Pose bent{};
  bent[kLeftFoot].flex = 90;
  const auto at = joint_positions(bent);
  EXPECT_NEAR(at[kLeftFoot][2] - at[kLeftKnee][2], -bones()[kLeftFoot].length, 1e-9);
  bent[kLeftWrist].flex = -90;  // the elbow: the hand in front
  EXPECT_NEAR(joint_positions(bent)[kLeftWrist][2] - at[kLeftElbow][2], bones()[kLeftWrist].length, 1e-9);
}

TEST(PoseData, KeyPointsAreTheCamerasProjectionHipRelativeAtUnitScale) {
  int families[kFamilies] = {};
  for (uint64_t i = 0; i < 400; ++i) {
    const LiftingSample s = lifting_sample(5, i, 0);
    ++families[static_cast<int>(s.family)];
    double squares = 0;
    for (int j = 0; j < kJoints; ++j) squares += s.points[j][0] * s.points[j][0] + s.points[j][1] * s.points[j][1];
    ASSERT_NEAR(squares / kJoints, 1, 1e-9);
    EXPECT_EQ(s.points[kHip], (std::array<double, 2>{0, 0}));
    EXPECT_EQ(s.joints[kHip], (Vec3{0, 0, 0}));
    // The camera turns the body without stretching it: one size for every bone, within the range.
    const double size = distance(pose_test_bone(s.joints, kLeftKnee), {}) * 1000 / bones()[kLeftKnee].length;
    EXPECT_TRUE(size >= 0.92 && size <= 1.08) << size;
    for (int j = 1; j < kJoints; ++j)
      ASSERT_NEAR(distance(pose_test_bone(s.joints, j), {}) * 1000, bones()[j].length * size, 1e-6);
  }
  for (int count : families) EXPECT_GT(count, 60);  // each family about a quarter
  // A camera so far away that it projects orthographically: the key points are the 3-D joints'
  // x and y, divided by their root-mean-square.
  const LiftingSample far = lifting_sample(5, 1, 0, {.distance_lo = 1e12, .distance_hi = 1e12});
  double squares = 0;
  for (int j = 0; j < kJoints; ++j) squares += far.joints[j][0] * far.joints[j][0] + far.joints[j][1] * far.joints[j][1];
  const double rms = std::sqrt(squares / kJoints);
  for (int j = 0; j < kJoints; ++j)
    for (int k = 0; k < 2; ++k) EXPECT_NEAR(far.points[j][k], far.joints[j][k] / rms, 1e-6);
  // Noise moves the key points.
  EXPECT_NE(lifting_sample(5, 1, 3).points, lifting_sample(5, 1, 0).points);
}

TEST(PoseData, ErrorsAreZeroOnlyUpToTheirTransforms) {
  const LiftingSample s = lifting_sample(9, 2, 0);
  const Joints& truth = s.joints;
  EXPECT_EQ(mpjpe_mm(truth, truth), 0);
  // 10 mm along x on every joint but the hip: 16 of 17 joints off by 10 mm.
  Joints moved = truth;
  for (int j = 1; j < kJoints; ++j) moved[j][0] += 0.010;
  EXPECT_NEAR(mpjpe_mm(moved, truth), 10.0 * 16 / 17, 1e-9);
  // Turned, scaled and shifted: MPJPE large, PA-MPJPE zero.
  const Mat3 turn = rotation(1, 70) * rotation(0, -25);
  Joints similar;
  for (int j = 0; j < kJoints; ++j) {
    const Vec3 v = turn * truth[j];
    for (int k = 0; k < 3; ++k) similar[j][k] = 1.3 * v[k] + 0.2;
  }
  EXPECT_GT(mpjpe_mm(similar, truth), 100);
  EXPECT_NEAR(pa_mpjpe_mm(similar, truth), 0, 1e-6);
  // A mirror image is not a rotation: Procrustes cannot undo it.
  Joints mirrored = truth;
  for (Vec3& v : mirrored) v[0] = -v[0];
  EXPECT_GT(pa_mpjpe_mm(mirrored, truth), 1);
  // Against another pose, the alignment only helps.
  const Joints other = lifting_sample(9, 3, 0).joints;
  EXPECT_LE(pa_mpjpe_mm(other, truth), mpjpe_mm(other, truth));
}

}  // namespace
