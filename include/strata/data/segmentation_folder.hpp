// A segmentation set from two folders: images/<name>.png|.jpg and masks/<name>.png paired by file
// name (the extension aside), each mask a single-channel PNG whose pixel values are class ids.
// Every file is checked when it is read: the pair's sizes must agree (and match `height` /
// `width` when given), mask ids must be below `classes`; errors name the file.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/data/dataset.hpp"

namespace strata::data {

struct SegmentationFolderOptions {
  int64_t classes = 2;     // mask values must lie in [0, classes), classes in [2, 256]
  int channels = 1;        // of the decoded images: 1 (gray) or 3 (RGB)
  int64_t height = 0;      // every image must be this tall; 0: any
  int64_t width = 0;       // every image must be this wide; 0: any
};

struct SegmentationFolder {
  std::vector<std::string> images;  // sorted by name
  std::vector<std::string> masks;   // masks[k] is the mask of images[k]
  SegmentationFolderOptions options;

  // Example k: {image float32 [H, W, channels] in [0, 1], mask int64 [H, W]}, decoded when read.
  Dataset dataset() const;
};

// Lists and pairs the files (hidden ones skipped). Throws strata::Error when a folder is missing
// or empty, an image has no mask or a mask no image, two files share a name, or the options are
// out of range.
SegmentationFolder segmentation_folder(const std::string& images, const std::string& masks,
                                       const SegmentationFolderOptions& options = {});

}  // namespace strata::data
