#include "strata/data/mpii_pose.hpp"

#include <filesystem>
#include <string>

#include "strata/core/error.hpp"
#include "strata/data/mat_file.hpp"

namespace strata::data {
namespace {

namespace fs = std::filesystem;

// A joint's is_visible: empty, a number, or (in MPII's file) the char '0' or '1'.
int visibility(const MatValue& v, const std::string& where) {
  if (v.empty()) return 0;
  if (v.kind == MatValue::Kind::text) {
    const std::string s = v.text();
    STRATA_CHECK(s == "0" || s == "1", where, ": is_visible '", s, "' is not 0 or 1");
    return s == "1";
  }
  return int(v.scalar());
}

// The people of one image's annorect (a struct array, or [] when none are annotated).
std::vector<MpiiPerson> people(const MatValue& annorect, const std::string& filename, bool train, bool only_16,
                               const std::string& where) {
  std::vector<MpiiPerson> out;
  if (annorect.kind != MatValue::Kind::structure || !annorect.has_field("annopoints")) return out;
  for (int64_t k = 0; k < annorect.numel(); ++k) {
    const MatValue& annopoints = annorect.field("annopoints", k);
    if (annopoints.empty()) continue;
    MpiiPerson p{filename, train, {}, {}, {}};
    const char* corners[] = {"x1", "y1", "x2", "y2"};
    for (int c = 0; c < 4; ++c) p.head_rect[c] = annorect.field(corners[c], k).scalar();
    const MatValue& point = annopoints.field("point");
    const bool has_visible = point.has_field("is_visible");
    if (has_visible) p.visible.emplace();
    for (int64_t j = 0; j < point.numel(); ++j) {
      const int id = int(point.field("id", j).scalar());
      p.joints[id] = {point.field("x", j).scalar(), point.field("y", j).scalar()};
      if (has_visible) (*p.visible)[id] = visibility(point.field("is_visible", j), where);
    }
    if (!only_16 || p.joints.size() == 16) out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

MpiiPose load_mpii_pose(const std::string& root, bool only_16_joints) {
  const fs::path file = fs::path(root) / "mpii_human_pose_v1_u12_2" / "mpii_human_pose_v1_u12_1.mat";
  const fs::path images = fs::path(root) / "images";
  STRATA_CHECK(fs::is_regular_file(file), "MPII pose: expected the annotation file ", file.string(),
               " (from human-pose.mpi-inf.mpg.de; nothing is downloaded)");
  STRATA_CHECK(fs::is_directory(images), "MPII pose: expected the image folder ", images.string());
  const MatFile mat = read_mat(file.string());
  const MatValue& release = mat.at("RELEASE");
  const MatValue& annolist = release.field("annolist");
  const MatValue& img_train = release.field("img_train");
  STRATA_CHECK(annolist.kind == MatValue::Kind::structure && img_train.kind == MatValue::Kind::numeric &&
                   img_train.numel() == annolist.numel(),
               "MPII pose ", file.string(), ": RELEASE.annolist (", annolist.numel(),
               " images) and RELEASE.img_train (", img_train.numel(), " flags) must agree");
  const std::vector<double> train_flags = img_train.array.to_vector<double>();
  MpiiPose pose;
  for (int64_t i = 0; i < annolist.numel(); ++i) {
    const std::string where = file.string() + ": annolist(" + std::to_string(i + 1) + ")";
    const std::string name = annolist.field("image", i).field("name").text();
    STRATA_CHECK(!name.empty() && name.find('/') == std::string::npos && name.find('\\') == std::string::npos &&
                     name != "." && name != "..",
                 where, ": image name '", name, "' is not a file name");
    const bool train = train_flags[i] != 0;
    if (!fs::is_regular_file(images / name)) continue;  // missing image: dropped with its people
    auto found = people(annolist.field("annorect", i), name, train, only_16_joints, where);
    (train ? pose.train_images : pose.test_images).push_back((images / name).string());
    (train ? pose.train_people : pose.test_people).push_back(std::move(found));
  }
  return pose;
}

}  // namespace strata::data
