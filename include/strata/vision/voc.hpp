// Pascal VOC-format detection folders: ROOT/JPEGImages/<id>.jpg with ROOT/Annotations/<id>.xml
// (VOC 2007/2012 and the many data sets exported in its format), as a data::Dataset.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/data/dataset.hpp"
#include "strata/vision/boxes.hpp"

namespace strata::vision {

// The 20 VOC classes, by label: aeroplane, bicycle, bird, boat, bottle, bus, car, cat, chair, cow,
// diningtable, dog, horse, motorbike, person, pottedplant, sheep, sofa, train, tvmonitor.
const std::vector<std::string>& voc_classes();

struct VocOptions {
  // Empty: the 20 VOC names when every object's name is one of them, else the names found, sorted.
  std::vector<std::string> classes;
  bool skip_difficult = false;           // leave out objects marked <difficult>1</difficult>
  int64_t max_xml_bytes = 1 << 20;       // a larger annotation file is refused
  int64_t max_objects = 4096;            // per annotation file
};

struct VocObject {
  Box box;  // pixel edges: VOC's 1-based inclusive (xmin, ymin, xmax, ymax) as (xmin - 1, ymin - 1, xmax, ymax)
  std::string name;
  bool difficult = false;
};

// One annotation file's objects. The XML is hostile: DOCTYPE and entity declarations are refused
// (so nothing expands), only the five predefined entities and character references are decoded,
// nesting is bounded (64), and every coordinate must be a finite number with xmin <= xmax and
// ymin <= ymax. Errors name the file.
std::vector<VocObject> parse_voc_annotation(const std::string& xml, const std::string& name = "<memory>");

struct VocFolder {
  data::Dataset dataset;             // {image uint8 [H, W, 3], boxes float32 [K, 4], labels int64 [K]}
  std::vector<std::string> classes;  // label -> name
  std::vector<std::string> ids;      // example i's file stem
};

// Reads every annotation now (sorted by file name), each image when its example is read. An
// annotation without its image, or an object whose class is not in options.classes, is an error
// naming the file.
VocFolder voc_folder(const std::string& root, const VocOptions& options = {});

}  // namespace strata::vision
