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

namespace strata::vision {
namespace {

namespace fs = std::filesystem;
constexpr int kMaxXmlDepth = 64;

// One element of the XML: its tag and text, with its children; only what VOC files use
// (attributes are skipped, comments and processing instructions ignored).
struct Element {
  std::string tag, text;
  std::vector<Element> children;
  const Element* child(const std::string& t) const {
    for (const Element& c : children)
      if (c.tag == t) return &c;
    return nullptr;
  }
};

class XmlReader {
 public:
  XmlReader(const std::string& xml, const std::string& name) : s_(xml), name_(name) {}

  Element document() {
    skip_misc();
    STRATA_CHECK(at("<") && !at("</"), name_, ": expected an XML element at byte ", pos_);
    Element root = element(0);
    skip_misc();
    STRATA_CHECK(pos_ == s_.size(), name_, ": text after the root element at byte ", pos_);
    return root;
  }

 private:
  bool at(const char* p) const { return s_.compare(pos_, std::char_traits<char>::length(p), p) == 0; }
  [[noreturn]] void fail(const std::string& what) const { throw Error(name_ + ": " + what + " at byte " + std::to_string(pos_)); }

  void skip_to(const char* end) {
    const size_t e = s_.find(end, pos_);
    if (e == std::string::npos) fail(std::string("no closing ") + end);
    pos_ = e + std::char_traits<char>::length(end);
  }

  // Whitespace, comments, processing instructions; DOCTYPE (and with it entity declarations) is refused.
  void skip_misc() {
    for (;;) {
      while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      if (at("<!--")) skip_to("-->");
      else if (at("<?")) skip_to("?>");
      else if (at("<!")) fail("a DOCTYPE or declaration (refused: no entities are expanded)");
      else return;
    }
  }

  std::string tag_name() {
    const size_t start = pos_;
    while (pos_ < s_.size() && !std::isspace(static_cast<unsigned char>(s_[pos_])) && s_[pos_] != '>' && s_[pos_] != '/') ++pos_;
    if (pos_ == start) fail("an empty tag name");
    return s_.substr(start, pos_ - start);
  }

  // Text with the predefined entities and character references (ASCII only) decoded.
  void append_text(std::string& out, size_t from, size_t to) const {
    for (size_t i = from; i < to; ++i) {
      if (s_[i] != '&') {
        out += s_[i];
        continue;
      }
      const size_t semi = s_.find(';', i);
      if (semi == std::string::npos || semi > to || semi - i > 10) throw Error(name_ + ": a bad entity at byte " + std::to_string(i));
      const std::string ent = s_.substr(i + 1, semi - i - 1);
      static const std::map<std::string, char> named{{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
      if (const auto it = named.find(ent); it != named.end()) {
        out += it->second;
      } else if (ent.size() >= 2 && ent[0] == '#') {
        const bool hex = ent[1] == 'x';
        const std::string digits = ent.substr(hex ? 2 : 1);
        STRATA_CHECK(!digits.empty() && digits.size() <= 6 && std::all_of(digits.begin(), digits.end(), [hex](char c) {
                       return hex ? std::isxdigit(static_cast<unsigned char>(c)) != 0 : std::isdigit(static_cast<unsigned char>(c)) != 0;
                     }), name_, ": a bad character reference &", ent, ";");
        const long code = std::stol(digits, nullptr, hex ? 16 : 10);
        STRATA_CHECK(code > 0 && code < 128, name_, ": character reference &", ent, "; is not ASCII");
        out += static_cast<char>(code);
      } else {
        throw Error(name_ + ": unknown entity &" + ent + "; (only XML's five predefined ones are read)");
      }
      i = semi;
    }
  }

  // pos_ at '<' of a start tag.
  Element element(int depth) {
    if (depth >= kMaxXmlDepth) fail("elements nested deeper than " + std::to_string(kMaxXmlDepth));
    ++pos_;
    Element e;
    e.tag = tag_name();
    const size_t close = s_.find('>', pos_);
    if (close == std::string::npos) fail("an unclosed tag <" + e.tag);
    const bool empty = s_[close - 1] == '/';
    pos_ = close + 1;
    if (empty) return e;
    for (;;) {
      const size_t lt = s_.find('<', pos_);
      if (lt == std::string::npos) fail("no closing </" + e.tag + ">");
      append_text(e.text, pos_, lt);
      pos_ = lt;
      if (at("</")) {
        pos_ += 2;
        const std::string end = tag_name();
        if (end != e.tag) fail("</" + end + "> closes <" + e.tag + ">");
        skip_to(">");
        return e;
      }
      if (at("<!--")) skip_to("-->");
      else if (at("<?")) skip_to("?>");
      else if (at("<![CDATA[")) {
        const size_t start = pos_ + 9;
        skip_to("]]>");
        e.text += s_.substr(start, pos_ - 3 - start);
      } else if (at("<!")) fail("a declaration inside an element");
      else e.children.push_back(element(depth + 1));
    }
  }

  const std::string& s_;
  const std::string& name_;
  size_t pos_ = 0;
};

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

double coordinate(const Element& box, const char* tag, const std::string& name) {
  const Element* e = box.child(tag);
  STRATA_CHECK(e != nullptr, name, ": an object's <bndbox> has no <", tag, ">");
  const std::string t = trimmed(e->text);
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  STRATA_CHECK(used == t.size() && !t.empty() && std::isfinite(v), name, ": <", tag, "> is '", t.substr(0, 40), "'; expected a number");
  return v;
}

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
