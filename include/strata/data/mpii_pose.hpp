// MPII Human Pose (human-pose.mpi-inf.mpg.de): the RELEASE struct of mpii_human_pose_v1_u12_1.mat
// (a level-5 MAT-file, read through data/mat_file.hpp) as TensorLayer's load_mpii_pose_dataset
// returns it: image names split by img_train, and per image the people with annotated joints.
#pragma once
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace strata::data {

struct MpiiPerson {
  std::string filename;  // the image's name, as in the annotation
  bool train = false;
  std::array<double, 4> head_rect{};            // x1, y1, x2, y2
  std::map<int, std::array<double, 2>> joints;  // joint id (0..15) -> x, y
  // Joint id -> 0/1; a joint whose is_visible is empty counts 0. Absent when the file's points
  // have no is_visible field (TensorLayer's None).
  std::optional<std::map<int, int>> visible;
};

struct MpiiPose {
  std::vector<std::string> train_images, test_images;              // paths under <root>/images
  std::vector<std::vector<MpiiPerson>> train_people, test_people;  // one list per image, same order
};

// `root` (TensorLayer's data/mpii_human_pose) holds mpii_human_pose_v1_u12_2/
// mpii_human_pose_v1_u12_1.mat and images/. People without joint annotations are left out;
// only_16_joints keeps those with all 16 joints. An image named in the annotations but missing
// from images/ is dropped with its people (TensorLayer means to; its loop deletes the wrong
// entries). Errors name the file and the annotation that does not have MPII's layout.
MpiiPose load_mpii_pose(const std::string& root, bool only_16_joints = false);

}  // namespace strata::data
