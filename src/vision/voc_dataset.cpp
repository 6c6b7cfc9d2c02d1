// tl.files.load_voc_dataset's lists and Darknet lines from a local VOC folder (vision/voc_dataset.hpp).
#include "strata/vision/voc_dataset.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "data/file_bytes.hpp"
#include "strata/core/error.hpp"
#include "strata/vision/voc.hpp"
#include "voc_xml.hpp"

namespace strata::vision {
namespace {

constexpr uintmax_t kMaxVocDatasetXmlBytes = 1 << 20;

// TensorLayer's sort key: int(name.replace('.', ' ').replace('_', '').split(' ')[-2]).
int64_t voc_file_number(const std::string& file, const std::string& folder) {
  std::string s = file;
  std::replace(s.begin(), s.end(), '.', ' ');
  std::erase(s, '_');
  std::vector<std::string> fields{""};
  for (char c : s) {
    if (c == ' ')
      fields.emplace_back();
    else
      fields.back().push_back(c);
  }
  const std::string field = fields.size() >= 2 ? fields[fields.size() - 2] : std::string();
  int64_t value = 0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  STRATA_CHECK(!field.empty() && error == std::errc() && end == field.data() + field.size(),
               "load_voc_dataset: ", folder, "/", file,
               " is not named as VOC names its files (a number such as 2007_000027 before the ",
               "extension), by which TensorLayer sorts them");
  return value;
}

// The folder's file names containing `extension` (TensorLayer's load_file_list regx), sorted by
// their number, as full paths. An absent optional folder gives no files.
std::vector<std::string> voc_file_list(const std::filesystem::path& folder, const std::string& extension,
                                       bool required) {
  if (!std::filesystem::is_directory(folder)) {
    STRATA_CHECK(!required, "load_voc_dataset: the folder ", folder.string(), " is missing");
    return {};
  }
  std::vector<std::pair<int64_t, std::string>> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.find(extension) != std::string::npos)
      files.emplace_back(voc_file_number(name, folder.string()), name);
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> paths;
  for (const auto& [number, name] : files) paths.push_back((folder / name).string());
  return paths;
}

// Every descendant of e tagged `tag`, in document order (ElementTree's iter, e itself excluded).
void voc_descendants(const detail::Element& e, const std::string& tag, std::vector<const detail::Element*>& out) {
  for (const detail::Element& c : e.children) {
    if (c.tag == tag) out.push_back(&c);
    voc_descendants(c, tag, out);
  }
}

int64_t voc_image_size(const detail::Element& size, const char* tag, const std::string& file) {
  const detail::Element* e = size.child(tag);
  STRATA_CHECK(e != nullptr, file, ": <size> has no <", tag, ">");
  const std::string t = detail::trimmed(e->text);
  int64_t v = 0;
  const auto [end, error] = std::from_chars(t.data(), t.data() + t.size(), v);
  STRATA_CHECK(error == std::errc() && end == t.data() + t.size() && v > 0, file, ": <", tag, "> is '", t.substr(0, 40),
               "'; expected a positive integer");
  return v;
}

// "class x_centre y_centre width height\n" of a <bndbox> in an image of w x h, computed as
// TensorLayer does (multiplying by 1 / size).
std::string darknet_line(int64_t class_id, const detail::Element& holder, int64_t w, int64_t h,
                         const std::string& file) {
  const detail::Element* box = holder.child("bndbox");
  STRATA_CHECK(box != nullptr, file, ": an <object> or <part> without <bndbox>");
  const double xmin = detail::coordinate(*box, "xmin", file), xmax = detail::coordinate(*box, "xmax", file);
  const double ymin = detail::coordinate(*box, "ymin", file), ymax = detail::coordinate(*box, "ymax", file);
  const double dw = 1.0 / static_cast<double>(w), dh = 1.0 / static_cast<double>(h);
  const double values[] = {(xmin + xmax) / 2.0 * dw, (ymin + ymax) / 2.0 * dh, (xmax - xmin) * dw, (ymax - ymin) * dh};
  std::string line = std::to_string(class_id);
  for (double v : values) line += " " + python_float_str(v);
  return line + "\n";
}

std::string voc_child_text(const detail::Element& e, const char* tag, const std::string& file) {
  const detail::Element* c = e.child(tag);
  STRATA_CHECK(c != nullptr, file, ": an <", e.tag, "> without <", tag, ">");
  return detail::trimmed(c->text);
}

}  // namespace

std::string python_float_str(double value) {
  STRATA_CHECK(std::isfinite(value), "python_float_str: ", value, " is not finite");
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);  // shortest
  const std::string sci(buf, result.ptr);
  const size_t e = sci.find('e');
  std::string mantissa = sci.substr(0, e);
  const int exponent = std::atoi(sci.c_str() + e + 1);
  const bool negative = mantissa[0] == '-';
  if (negative) mantissa.erase(0, 1);
  std::erase(mantissa, '.');  // the significant digits, the first before the point
  std::string out;
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) {
      out = "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + mantissa;
    } else {
      const size_t integer = static_cast<size_t>(exponent) + 1;
      if (mantissa.size() < integer) mantissa.append(integer - mantissa.size(), '0');
      const std::string fraction = mantissa.substr(integer);
      out = mantissa.substr(0, integer) + "." + (fraction.empty() ? "0" : fraction);
    }
  } else {
    out = mantissa.substr(0, 1) + (mantissa.size() > 1 ? "." + mantissa.substr(1) : "") + "e" +
          (exponent < 0 ? "-" : "+") + (std::abs(exponent) < 10 ? "0" : "") + std::to_string(std::abs(exponent));
  }
  return negative ? "-" + out : out;
}

VocDataset load_voc_dataset(const std::string& path, const std::string& dataset, bool contain_classes_in_person) {
  STRATA_CHECK(dataset == "2012" || dataset == "2007" || dataset == "2007test" || dataset == "2012test",
               "load_voc_dataset: dataset must be 2012, 2007, 2007test or 2012test, got '", dataset, "'");
  const std::filesystem::path root = std::filesystem::path(path) / "VOC" / ("VOC" + dataset);
  STRATA_CHECK(std::filesystem::is_directory(root), "load_voc_dataset: ", root.string(),
               " is not a folder (nothing is downloaded: extract VOCdevkit/VOC", dataset.substr(0, 4), " there)");
  const bool test_2012 = dataset == "2012test";
  VocDataset out;
  out.classes = voc_classes();
  if (contain_classes_in_person) out.classes_in_person = {"head", "hand", "foot"};
  out.classes.insert(out.classes.end(), out.classes_in_person.begin(), out.classes_in_person.end());
  for (size_t i = 0; i < out.classes.size(); ++i) out.classes_dict[out.classes[i]] = static_cast<int64_t>(i);
  out.images = voc_file_list(root / "JPEGImages", ".jpg", true);
  if (!test_2012) {
    out.semantic_maps = voc_file_list(root / "SegmentationClass", ".png", false);
    out.instance_maps = voc_file_list(root / "SegmentationObject", ".png", false);
  }
  out.annotations = voc_file_list(root / "Annotations", ".xml", true);
  if (test_2012) {  // the images that have an annotation: the first whose path holds its name
    std::vector<std::string> kept;
    for (const std::string& ann : out.annotations) {
      const std::string file = std::filesystem::path(ann).filename().string(), id = file.substr(0, file.find('.'));
      const auto it = std::find_if(out.images.begin(), out.images.end(),
                                   [&](const std::string& im) { return im.find(id) != std::string::npos; });
      if (it != out.images.end()) kept.push_back(*it);
    }
    out.images = std::move(kept);
  }
  auto class_id = [&](const std::string& name, const std::vector<std::string>& among) -> int64_t {
    if (std::find(among.begin(), among.end(), name) == among.end()) return -1;
    return out.classes_dict.at(name);
  };
  for (const std::string& file : out.annotations) {
    const auto bytes_on_disk = std::filesystem::file_size(file);
    STRATA_CHECK(bytes_on_disk <= kMaxVocDatasetXmlBytes, file, ": ", bytes_on_disk, " bytes; at most ",
                 kMaxVocDatasetXmlBytes, " are read");
    const std::vector<unsigned char> bytes = data::detail::read_file_bytes(file, "load_voc_dataset");
    const detail::Element doc = detail::XmlReader(std::string(bytes.begin(), bytes.end()), file).document();
    const detail::Element* size = doc.child("size");
    STRATA_CHECK(size != nullptr, file, ": no <size> (the image's width and height)");
    const int64_t w = voc_image_size(*size, "width", file), h = voc_image_size(*size, "height", file);
    std::vector<const detail::Element*> objects;
    voc_descendants(doc, "object", objects);
    int64_t count = 0;
    std::string lines;
    for (const detail::Element* object : objects) {
      const std::string name = voc_child_text(*object, "name", file);
      if (!test_2012) {
        const detail::Element* difficult = object->child("difficult");
        if (difficult != nullptr && detail::trimmed(difficult->text) == "1") continue;
      }
      const int64_t id = class_id(name, out.classes);
      if (id < 0) continue;
      lines += darknet_line(id, *object, w, h, file);
      ++count;
      if (name != "person") continue;
      std::vector<const detail::Element*> parts;
      voc_descendants(*object, "part", parts);
      for (const detail::Element* part : parts) {
        const int64_t part_id = class_id(voc_child_text(*part, "name", file), out.classes_in_person);
        if (part_id < 0) continue;
        lines += darknet_line(part_id, *part, w, h, file);
        ++count;
      }
    }
    out.n_objs.push_back(count);
    out.objs_info.push_back(std::move(lines));
  }
  return out;
}

}  // namespace strata::vision
