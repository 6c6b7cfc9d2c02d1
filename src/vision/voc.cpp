#include "strata/vision/voc.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "data/file_bytes.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/data/image_codec.hpp"
#include "voc_xml.hpp"

namespace strata::vision {
namespace {

namespace fs = std::filesystem;
using detail::coordinate;
using detail::Element;
using detail::trimmed;
using detail::XmlReader;

}  // namespace

const std::vector<std::string>& voc_classes() {
  static const std::vector<std::string> names{"aeroplane", "bicycle", "bird",  "boat",        "bottle", "bus",   "car",
                                              "cat",       "chair",   "cow",   "diningtable", "dog",    "horse", "motorbike",
                                              "person",    "pottedplant", "sheep", "sofa",    "train",  "tvmonitor"};
  return names;
}

std::vector<VocObject> parse_voc_annotation(const std::string& xml, const std::string& name) {
  const Element root = XmlReader(xml, name).document();
  STRATA_CHECK(root.tag == "annotation", name, ": the root element is <", root.tag, ">; expected <annotation>");
  std::vector<VocObject> objects;
  for (const Element& o : root.children) {
    if (o.tag != "object") continue;
    const Element* n = o.child("name");
    const Element* box = o.child("bndbox");
    STRATA_CHECK(n != nullptr && box != nullptr, name, ": an <object> without <name> or <bndbox>");
    VocObject v;
    v.name = trimmed(n->text);
    STRATA_CHECK(!v.name.empty() && v.name.size() <= 256, name, ": an object's <name> is empty or longer than 256 bytes");
    const Element* difficult = o.child("difficult");
    v.difficult = difficult != nullptr && trimmed(difficult->text) == "1";
    const double x1 = coordinate(*box, "xmin", name), y1 = coordinate(*box, "ymin", name);
    const double x2 = coordinate(*box, "xmax", name), y2 = coordinate(*box, "ymax", name);
    STRATA_CHECK(x1 <= x2 && y1 <= y2, name, ": box (", x1, ", ", y1, ", ", x2, ", ", y2, ") has xmin > xmax or ymin > ymax");
    v.box = {x1 - 1, y1 - 1, x2, y2};
    objects.push_back(std::move(v));
  }
  return objects;
}

VocFolder voc_folder(const std::string& root, const VocOptions& options) {
  const fs::path annotations = fs::path(root) / "Annotations", images = fs::path(root) / "JPEGImages";
  STRATA_CHECK(fs::is_directory(annotations) && fs::is_directory(images), "voc_folder: '", root,
               "' has no Annotations and JPEGImages folders");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(annotations))
    if (entry.is_regular_file() && entry.path().extension() == ".xml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<std::string> ids, classes = options.classes;
  std::vector<std::vector<VocObject>> per_file;
  std::set<std::string> found;
  for (const fs::path& file : files) {
    const auto size = fs::file_size(file);
    STRATA_CHECK(size <= static_cast<uintmax_t>(options.max_xml_bytes), file.string(), ": ", size, " bytes; at most ",
                 options.max_xml_bytes, " are read (VocOptions::max_xml_bytes)");
    const std::vector<unsigned char> bytes = data::detail::read_file_bytes(file.string(), "voc_folder");
    std::vector<VocObject> objects = parse_voc_annotation(std::string(bytes.begin(), bytes.end()), file.string());
    STRATA_CHECK(static_cast<int64_t>(objects.size()) <= options.max_objects, file.string(), ": ", objects.size(),
                 " objects; at most ", options.max_objects, " (VocOptions::max_objects)");
    if (options.skip_difficult) std::erase_if(objects, [](const VocObject& o) { return o.difficult; });
    const fs::path image = images / (file.stem().string() + ".jpg");
    STRATA_CHECK(fs::is_regular_file(image), file.string(), ": its image ", image.string(), " is missing");
    for (const VocObject& o : objects) found.insert(o.name);
    ids.push_back(file.stem().string());
    per_file.push_back(std::move(objects));
  }
  if (classes.empty()) {
    const auto& voc = voc_classes();
    const bool all_voc = std::all_of(found.begin(), found.end(), [&](const std::string& n) { return std::find(voc.begin(), voc.end(), n) != voc.end(); });
    classes = all_voc ? voc : std::vector<std::string>(found.begin(), found.end());
  }
  std::vector<Tensor> boxes, labels;
  for (size_t i = 0; i < per_file.size(); ++i) {
    std::vector<float> b;
    std::vector<int64_t> l;
    for (const VocObject& o : per_file[i]) {
      const auto it = std::find(classes.begin(), classes.end(), o.name);
      STRATA_CHECK(it != classes.end(), (annotations / (ids[i] + ".xml")).string(), ": class '", o.name,
                   "' is not one of the ", classes.size(), " classes given");
      b.insert(b.end(), {static_cast<float>(o.box.x1), static_cast<float>(o.box.y1), static_cast<float>(o.box.x2), static_cast<float>(o.box.y2)});
      l.push_back(it - classes.begin());
    }
    const auto k = static_cast<int64_t>(l.size());
    boxes.push_back(from_vector(b, {k, 4}));
    labels.push_back(from_vector(l, {k}));
  }
  const std::string image_dir = images.string();
  data::Dataset dataset(static_cast<int64_t>(ids.size()), [ids, boxes, labels, image_dir](int64_t i) {
    return data::Example{data::read_image(image_dir + "/" + ids[i] + ".jpg", 3), boxes[i], labels[i]};
  });
  return {std::move(dataset), std::move(classes), std::move(ids)};
}

}  // namespace strata::vision
