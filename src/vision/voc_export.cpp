#include "strata/vision/voc_export.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "strata/core/error.hpp"
#include "strata/data/image_codec.hpp"

namespace strata::vision {
namespace {

namespace fs = std::filesystem;

// A file stem VOC tools accept: no path separators, no leading dot, not empty, printable.
bool plain_stem(const std::string& id) {
  if (id.empty() || id.size() > 255 || id[0] == '.') return false;
  for (const char c : id)
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x21 || c == 0x7f) return false;
  return true;
}

std::string xml_escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Written whole to a temporary name, then renamed: a reader never sees half a file.
void write_text(const fs::path& path, const std::string& text) {
  const fs::path partial = path.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out << text;
    STRATA_CHECK(out.good(), "write_voc_example: cannot write ", partial.string());
  }
  fs::rename(partial, path);
}

}  // namespace

void write_voc_example(const std::string& root, const std::string& id, const Tensor& image,
                       const std::vector<VocObject>& objects) {
  STRATA_CHECK(plain_stem(id), "write_voc_example: id '", id, "' is not a plain file name stem");
  STRATA_CHECK(image.defined() && image.dtype() == kUInt8 && image.dim() == 3 && image.size(2) == 3,
               "write_voc_example: ", id, ": expected an image uint8 [H, W, 3], got ",
               image.defined() ? image.shape().str() : "undefined");
  const int64_t height = image.size(0), width = image.size(1);
  std::ostringstream xml;
  xml.precision(17);
  xml << "<annotation>\n  <folder>" << xml_escaped(fs::path(root).filename().string()) << "</folder>\n  <filename>"
      << xml_escaped(id) << ".jpg</filename>\n  <size><width>" << width << "</width><height>" << height
      << "</height><depth>3</depth></size>\n";
  for (const VocObject& o : objects) {
    const Box& b = o.box;
    STRATA_CHECK(b.x1 >= 0 && b.y1 >= 0 && b.x1 <= b.x2 && b.y1 <= b.y2 && b.x2 <= static_cast<double>(width) &&
                     b.y2 <= static_cast<double>(height),
                 "write_voc_example: ", id, ": box (", b.x1, ", ", b.y1, ", ", b.x2, ", ", b.y2, ") of '", o.name,
                 "' is not inside the ", width, "x", height, " image");
    STRATA_CHECK(!o.name.empty(), "write_voc_example: ", id, ": an object without a class name");
    // VOC's corners are 1-based and inclusive: pixel edges (x1, y1, x2, y2) are (x1 + 1, y1 + 1, x2, y2).
    xml << "  <object>\n    <name>" << xml_escaped(o.name) << "</name>\n    <difficult>" << (o.difficult ? 1 : 0)
        << "</difficult>\n    <bndbox><xmin>" << b.x1 + 1 << "</xmin><ymin>" << b.y1 + 1 << "</ymin><xmax>" << b.x2
        << "</xmax><ymax>" << b.y2 << "</ymax></bndbox>\n  </object>\n";
  }
  xml << "</annotation>\n";
  fs::create_directories(fs::path(root) / "JPEGImages");
  fs::create_directories(fs::path(root) / "Annotations");
  data::write_image((fs::path(root) / "JPEGImages" / (id + ".jpg")).string(), image);
  write_text(fs::path(root) / "Annotations" / (id + ".xml"), xml.str());
}

void write_voc_image_set(const std::string& root, const std::string& set, const std::vector<std::string>& ids) {
  STRATA_CHECK(plain_stem(set), "write_voc_image_set: set '", set, "' is not a plain file name stem");
  std::string text;
  for (const std::string& id : ids) {
    STRATA_CHECK(plain_stem(id), "write_voc_image_set: id '", id, "' is not a plain file name stem");
    text += id + "\n";
  }
  const fs::path dir = fs::path(root) / "ImageSets" / "Main";
  fs::create_directories(dir);
  write_text(dir / (set + ".txt"), text);
}

std::vector<std::string> read_voc_image_set(const std::string& root, const std::string& set) {
  STRATA_CHECK(plain_stem(set), "read_voc_image_set: set '", set, "' is not a plain file name stem");
  const fs::path path = fs::path(root) / "ImageSets" / "Main" / (set + ".txt");
  if (!fs::is_regular_file(path)) return {};
  STRATA_CHECK(fs::file_size(path) <= (64u << 20), path.string(),
               ": over 64 MiB; an image-set list is one id per line");
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> ids;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // VOC's per-class lists hold "id  1" / "id -1": the id is the first field.
    const std::string id = line.substr(0, line.find_first_of(" \t"));
    if (id.empty()) continue;
    STRATA_CHECK(plain_stem(id), path.string(), ": line '", line.substr(0, 80),
                 "' does not start with a file name stem");
    ids.push_back(id);
  }
  return ids;
}

}  // namespace strata::vision
