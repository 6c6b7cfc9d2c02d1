// Writing Pascal VOC-format detection folders (the layout voc.hpp reads): any labelled image set,
// e.g. the generated detection set, becomes a folder other tools (darknet's voc_label.py,
// TensorLayer's load_voc_dataset, labelImg) read, and the image-set lists that split it.
#pragma once
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"
#include "strata/vision/voc.hpp"

namespace strata::vision {

// ROOT/JPEGImages/<id>.jpg (image uint8 [H, W, 3], JPEG quality 95) and ROOT/Annotations/<id>.xml
// with its size and objects; boxes are pixel edges (VocObject's), written as VOC's 1-based
// inclusive corners, so voc_folder reads them back unchanged. Folders are made as needed; names
// are XML-escaped. Throws strata::Error for an id that is not a plain file stem, an image that is
// not uint8 HWC with 3 channels, or a box outside the image.
void write_voc_example(const std::string& root, const std::string& id, const Tensor& image,
                       const std::vector<VocObject>& objects);

// ROOT/ImageSets/Main/<set>.txt: the ids, one per line (VOC's train.txt, val.txt, test.txt).
void write_voc_image_set(const std::string& root, const std::string& set, const std::vector<std::string>& ids);
// The ids listed in ROOT/ImageSets/Main/<set>.txt, in file order; empty when the file is missing.
// Throws for a file over 64 MiB or a line that is not a plain file stem.
std::vector<std::string> read_voc_image_set(const std::string& root, const std::string& set);

}  // namespace strata::vision
