#include "strata/data/segmentation_folder.hpp"

#include <filesystem>
#include <map>
#include <memory>

#include "strata/core/error.hpp"
#include "strata/data/image_codec.hpp"
#include "strata/data/image_folder.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::data {
namespace {

namespace fs = std::filesystem;

// name (the file name without its extension) -> path; two files with one name are an error.
std::map<std::string, std::string> by_name(const std::string& dir, const std::vector<std::string>& extensions,
                                           const char* what) {
  std::map<std::string, std::string> files;
  for (const std::string& path : image_files(dir, {.extensions = extensions}).paths) {
    const auto [it, fresh] = files.emplace(fs::path(path).stem().string(), path);
    STRATA_CHECK(fresh, "segmentation_folder: two ", what, " named ", it->first, ": ", it->second, " and ", path);
  }
  return files;
}

Example read_pair(const std::string& image_path, const std::string& mask_path, const SegmentationFolderOptions& o) {
  const Tensor image = read_image(image_path, o.channels);
  const Tensor mask = read_image(mask_path);
  const char* op = "segmentation_folder";
  STRATA_CHECK(mask.size(2) == 1, op, ": mask ", mask_path, " must be a single-channel (gray) PNG of class ids, got ",
               mask.size(2), " channels");
  STRATA_CHECK(mask.size(0) == image.size(0) && mask.size(1) == image.size(1), op, ": mask ", mask_path, " is ",
               mask.size(1), " x ", mask.size(0), " pixels but its image ", image_path, " is ", image.size(1), " x ",
               image.size(0));
  STRATA_CHECK((o.height == 0 || image.size(0) == o.height) && (o.width == 0 || image.size(1) == o.width), op, ": ",
               image_path, " is ", image.size(1), " x ", image.size(0), " pixels, expected ", o.width, " x ", o.height);
  const std::vector<uint8_t> ids = mask.to_vector<uint8_t>();
  for (size_t i = 0; i < ids.size(); ++i)
    STRATA_CHECK(ids[i] < o.classes, op, ": mask ", mask_path, " has class id ", static_cast<int>(ids[i]),
                 " at pixel (", i % mask.size(1), ", ", i / mask.size(1), "); expected ids below ", o.classes);
  return {image.to(kFloat32) / 255.0, mask.reshape({mask.size(0), mask.size(1)}).to(kInt64)};
}

}  // namespace

SegmentationFolder segmentation_folder(const std::string& images, const std::string& masks,
                                       const SegmentationFolderOptions& options) {
  const char* op = "segmentation_folder";
  STRATA_CHECK(options.classes >= 2 && options.classes <= 256, op, ": classes must be in [2, 256], got ",
               options.classes);
  STRATA_CHECK(options.channels == 1 || options.channels == 3, op, ": channels must be 1 or 3, got ",
               options.channels);
  STRATA_CHECK(options.height >= 0 && options.width >= 0, op, ": height and width must be >= 0, got ",
               options.height, " and ", options.width);
  // Masks are PNG only: JPEG's loss would change class ids at the edges.
  const auto image_by_name = by_name(images, {".png", ".jpg", ".jpeg"}, "images");
  auto mask_by_name = by_name(masks, {".png"}, "masks");
  SegmentationFolder folder;
  folder.options = options;
  for (const auto& [name, path] : image_by_name) {
    const auto mask = mask_by_name.find(name);
    STRATA_CHECK(mask != mask_by_name.end(), op, ": image ", path, " has no mask ", name, ".png in ", masks);
    folder.images.push_back(path);
    folder.masks.push_back(mask->second);
    mask_by_name.erase(mask);
  }
  STRATA_CHECK(mask_by_name.empty(), op, ": mask ", mask_by_name.begin()->second, " has no image named ",
               mask_by_name.begin()->first, " in ", images);
  return folder;
}

Dataset SegmentationFolder::dataset() const {
  auto pairs = std::make_shared<const SegmentationFolder>(*this);
  return Dataset(static_cast<int64_t>(images.size()),
                 [pairs](int64_t i) { return read_pair(pairs->images[i], pairs->masks[i], pairs->options); });
}

}  // namespace strata::data
