// TensorLayer's tl.files.load_voc_dataset over a PASCAL VOC copy the user already has (nothing is
// downloaded): <path>/VOC/VOC2012 (or VOC2007, VOC2007test, VOC2012test) with JPEGImages,
// Annotations and, where present, SegmentationClass and SegmentationObject. The fields are
// TensorLayer's return values in its order; for VOC as a detection Dataset see vision/voc.hpp.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace strata::vision {

struct VocDataset {
  // Full paths, each list sorted by the number in its file names (2007_000027.jpg -> 2007000027).
  std::vector<std::string> images;         // imgs_file_list: JPEGImages/*.jpg
  std::vector<std::string> semantic_maps;  // imgs_semseg_file_list: SegmentationClass/*.png (not every image)
  std::vector<std::string> instance_maps;  // imgs_insseg_file_list: SegmentationObject/*.png
  std::vector<std::string> annotations;    // imgs_ann_file_list: Annotations/*.xml
  std::vector<std::string> classes;        // the 20 VOC classes, then head, hand, foot with the person parts
  std::vector<std::string> classes_in_person;
  std::map<std::string, int64_t> classes_dict;  // class name -> its index in classes
  // Per annotation file: how many objects it lists and their Darknet lines
  // "class_id x_centre y_centre width height\n" (ratios of the image size, numbers written as
  // Python's str writes them): n_objs_list and objs_info_list. Difficult objects and classes not
  // in `classes` are left out (the test sets keep difficult ones); with the person parts, each
  // person's head, hand and foot boxes follow it.
  std::vector<int64_t> n_objs;
  std::vector<std::string> objs_info;
};

// dataset: "2012", "2007", "2007test" or "2012test" (the folder VOC<dataset>). Annotation files
// are read as voc.hpp's parser reads them (hostile XML refused, at most 1 MiB each). Errors name
// the folder or the file.
VocDataset load_voc_dataset(const std::string& path = "data", const std::string& dataset = "2012",
                            bool contain_classes_in_person = false);

// A double as Python 3's repr / str writes it: the shortest digits that read back the same,
// fixed notation for exponents -4 .. 15 ("0.173", "1.0"), else "1e-05", "1.5e+16".
std::string python_float_str(double value);

}  // namespace strata::vision
