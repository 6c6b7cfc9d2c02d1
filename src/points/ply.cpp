// PLY (Stanford's polygon format): a text header declaring elements and their properties, then
// the elements' records in ascii, binary_little_endian or binary_big_endian.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "cloud_parsing.hpp"
#include "strata/core/error.hpp"

namespace strata::points {
namespace {

using detail::CloudBuilder;

enum class Encoding { ascii, little_endian, big_endian };

struct ScalarType {
  int bytes = 0;
  bool is_float = false;
  bool is_signed = false;
};

struct Property {
  std::string name;
  ScalarType type;        // the items' type, for a list
  bool is_list = false;
  ScalarType count_type;  // a list's length type
};

struct Element {
  std::string name;
  uint64_t count = 0;
  std::vector<Property> properties;
};

struct PlyHeader {
  Encoding encoding = Encoding::ascii;
  std::vector<Element> elements;
  size_t data_start = 0;
};

ScalarType scalar_type(std::string_view name, const std::string& where) {
  struct Named {
    std::string_view a, b;
    ScalarType type;
  };
  static constexpr Named kTypes[] = {{"char", "int8", {1, false, true}},    {"uchar", "uint8", {1, false, false}},
                                     {"short", "int16", {2, false, true}},  {"ushort", "uint16", {2, false, false}},
                                     {"int", "int32", {4, false, true}},    {"uint", "uint32", {4, false, false}},
                                     {"float", "float32", {4, true, true}}, {"double", "float64", {8, true, true}}};
  for (const Named& t : kTypes)
    if (name == t.a || name == t.b) return t.type;
  throw Error(where + ": property type '" + std::string(name) +
              "' is not one of char uchar short ushort int uint float double (or int8 ... float64)");
}

PlyHeader parse_ply_header(std::string_view bytes, const std::string& where) {
  detail::LineCursor lines(bytes);
  STRATA_CHECK(lines.next() == "ply", where, ": expected the first line 'ply'");
  PlyHeader header;
  bool have_format = false;
  std::vector<std::string_view> tokens;
  for (;;) {
    STRATA_CHECK(!lines.at_end(), where, ": the header has no 'end_header' line");
    std::string_view line = lines.next();
    STRATA_CHECK(lines.position() <= kMaxHeaderBytes, where, ": the header is longer than ", kMaxHeaderBytes,
                 " bytes");
    detail::split_tokens(line, detail::kWhitespace, tokens);
    const std::string at = where + ": header line " + std::to_string(lines.line_number());
    if (tokens.empty() || tokens[0] == "comment" || tokens[0] == "obj_info") continue;
    if (tokens[0] == "end_header") break;
    if (tokens[0] == "format") {
      STRATA_CHECK(tokens.size() == 3, at, ": expected 'format <encoding> 1.0'");
      if (tokens[1] == "ascii") header.encoding = Encoding::ascii;
      else if (tokens[1] == "binary_little_endian") header.encoding = Encoding::little_endian;
      else if (tokens[1] == "binary_big_endian") header.encoding = Encoding::big_endian;
      else throw Error(at + ": format '" + std::string(tokens[1]) +
                       "' is not ascii, binary_little_endian or binary_big_endian");
      have_format = true;
    } else if (tokens[0] == "element") {
      STRATA_CHECK(tokens.size() == 3, at, ": expected 'element <name> <count>'");
      header.elements.push_back({std::string(tokens[1]), detail::count_or_throw(tokens[2], at, "the count"), {}});
    } else if (tokens[0] == "property") {
      STRATA_CHECK(!header.elements.empty(), at, ": a property before any element");
      Element& element = header.elements.back();
      STRATA_CHECK(element.properties.size() < kMaxProperties, at, ": element '", element.name, "' has more than ",
                   kMaxProperties, " properties");
      Property p;
      if (tokens.size() == 5 && tokens[1] == "list") {
        p = {std::string(tokens[4]), scalar_type(tokens[3], at), true, scalar_type(tokens[2], at)};
        STRATA_CHECK(!p.count_type.is_float, at, ": a list's length type must be an integer type");
      } else {
        STRATA_CHECK(tokens.size() == 3, at, ": expected 'property <type> <name>' or 'property list <count type> ",
                     "<item type> <name>'");
        p = {std::string(tokens[2]), scalar_type(tokens[1], at), false, {}};
      }
      element.properties.push_back(std::move(p));
    } else {
      throw Error(at + ": unknown keyword '" + std::string(tokens[0]) + "'");
    }
  }
  STRATA_CHECK(have_format, where, ": the header has no 'format' line");
  header.data_start = lines.position();
  return header;
}

// Values of the data part in the file's binary encoding.
class BinaryValues {
 public:
  BinaryValues(std::string_view bytes, bool big_endian, const std::string& where)
      : bytes_(bytes), big_endian_(big_endian), where_(where) {}
  size_t bytes_left() const { return bytes_.size() - position_; }
  double next(ScalarType type) {
    STRATA_CHECK(static_cast<size_t>(type.bytes) <= bytes_left(), where_, ": the data ends in the middle of a record");
    unsigned char b[8];
    std::memcpy(b, bytes_.data() + position_, type.bytes);
    position_ += type.bytes;
    if (big_endian_ != (std::endian::native == std::endian::big))
      for (int i = 0; i < type.bytes / 2; ++i) std::swap(b[i], b[type.bytes - 1 - i]);
    return decode(b, type);
  }
  void skip(uint64_t count, ScalarType type) {
    detail::check_claim(count, type.bytes, bytes_left(), where_, "a list");
    position_ += count * type.bytes;
  }

 private:
  static double decode(const unsigned char* b, ScalarType type) {
    auto as = [b]<class T>(T value) {
      std::memcpy(&value, b, sizeof value);
      return static_cast<double>(value);
    };
    if (type.is_float) return type.bytes == 4 ? as(float{}) : as(double{});
    switch (type.bytes) {
      case 1: return type.is_signed ? as(int8_t{}) : as(uint8_t{});
      case 2: return type.is_signed ? as(int16_t{}) : as(uint16_t{});
      default: return type.is_signed ? as(int32_t{}) : as(uint32_t{});
    }
  }
  std::string_view bytes_;
  size_t position_ = 0;
  bool big_endian_;
  const std::string& where_;
};

// Values of the data part as whitespace-separated text (line ends are whitespace too).
class TextValues {
 public:
  TextValues(std::string_view bytes, const std::string& where) : bytes_(bytes), where_(where) {}
  size_t bytes_left() const { return bytes_.size() - position_; }
  double next(ScalarType) {
    size_t start = bytes_.find_first_not_of(" \t\r\n\f\v", position_);
    STRATA_CHECK(start != std::string_view::npos, where_, ": the data ends in the middle of a record");
    size_t end = bytes_.find_first_of(" \t\r\n\f\v", start);
    if (end == std::string_view::npos) end = bytes_.size();
    position_ = end;
    return detail::number_or_throw(bytes_.substr(start, end - start), where_, "a value");
  }
  void skip(uint64_t count, ScalarType type) {
    for (uint64_t i = 0; i < count; ++i) next(type);  // each value is at least one byte: linear
  }

 private:
  std::string_view bytes_;
  size_t position_ = 0;
  const std::string& where_;
};

// What the reader does with each property of the element it reads.
enum class Role { skip, coordinate, column, face_list };

uint64_t list_length(double value, const std::string& where) {
  STRATA_CHECK(value >= 0 && value == std::floor(value) && value < 1.0e18, where, ": a list length is ", value);
  return static_cast<uint64_t>(value);
}

template <class Values>
void read_element(Values& values, const Element& element, bool is_vertex, bool is_face, CloudBuilder& cloud,
                  const std::string& where) {
  std::vector<Role> roles(element.properties.size(), Role::skip);
  std::vector<int> slots(element.properties.size(), 0);  // the coordinate (0..2) or the column
  uint64_t min_record_bytes = 0;
  int next_column = 0;
  for (size_t i = 0; i < element.properties.size(); ++i) {
    const Property& p = element.properties[i];
    min_record_bytes += p.is_list ? p.count_type.bytes : p.type.bytes;
    if (is_vertex && !p.is_list) {
      const bool xyz = p.name == "x" || p.name == "y" || p.name == "z";
      roles[i] = xyz ? Role::coordinate : Role::column;
      slots[i] = xyz ? p.name[0] - 'x' : next_column++;
    } else if (is_face && p.is_list && (p.name == "vertex_indices" || p.name == "vertex_index")) {
      roles[i] = Role::face_list;
    }
  }
  const std::string what = "element '" + element.name + "'";
  STRATA_CHECK(element.count == 0 || !element.properties.empty(), where, ": ", what, " has ", element.count,
               " records but no properties");
  // A text value takes at least one byte, a binary one its size.
  if constexpr (std::is_same_v<Values, TextValues>) min_record_bytes = element.properties.size();
  detail::check_claim(element.count, min_record_bytes, values.bytes_left(), where, what);
  if (is_vertex) cloud.reserve(element.count);
  std::vector<float> columns(cloud.property_count());
  std::vector<int64_t> polygon;
  for (uint64_t r = 0; r < element.count; ++r) {
    float xyz[3] = {0, 0, 0};
    for (size_t i = 0; i < element.properties.size(); ++i) {
      const Property& p = element.properties[i];
      if (p.is_list) {
        const uint64_t n = list_length(values.next(p.count_type), where);
        if (roles[i] != Role::face_list) {
          values.skip(n, p.type);
          continue;
        }
        STRATA_CHECK(n <= static_cast<uint64_t>(kMaxPolygonVertices), where, ": face ", r, " has ", n,
                     " vertices; expected 3 to ", kMaxPolygonVertices);
        polygon.clear();
        for (uint64_t k = 0; k < n; ++k) {
          const double index = values.next(p.type);
          STRATA_CHECK(index == std::floor(index) && std::abs(index) < 9.0e15, where, ": face ", r,
                       " has vertex index ", index);
          polygon.push_back(static_cast<int64_t>(index));
        }
        cloud.add_polygon(polygon);
      } else {
        const double v = values.next(p.type);
        if (roles[i] == Role::coordinate) xyz[slots[i]] = static_cast<float>(v);
        else if (roles[i] == Role::column) columns[slots[i]] = static_cast<float>(v);
      }
    }
    if (is_vertex) cloud.add_point(xyz, columns.data());
  }
}

}  // namespace

PointCloudFile parse_ply(std::string_view bytes, std::string_view name) {
  const std::string where = detail::source_label("PLY", name);
  const PlyHeader header = parse_ply_header(bytes, where);
  const Element* vertex = nullptr;
  for (const Element& e : header.elements)
    if (e.name == "vertex" && !vertex) vertex = &e;
  STRATA_CHECK(vertex, where, ": no 'vertex' element");
  std::vector<std::string> names;
  bool has[3] = {false, false, false};
  for (const Property& p : vertex->properties) {
    if (p.is_list) continue;
    if (p.name == "x" || p.name == "y" || p.name == "z") {
      STRATA_CHECK(!has[p.name[0] - 'x'], where, ": the vertex element declares '", p.name, "' twice");
      has[p.name[0] - 'x'] = true;
    } else {
      names.push_back(p.name);
    }
  }
  STRATA_CHECK(has[0] && has[1] && has[2], where, ": the vertex element needs properties x, y and z");
  CloudBuilder cloud(where, std::move(names));
  const std::string_view data = bytes.substr(header.data_start);
  bool seen_face = false;
  auto read_all = [&](auto& values) {
    for (const Element& e : header.elements) {
      const bool is_face = e.name == "face" && !seen_face;
      seen_face = seen_face || is_face;
      read_element(values, e, &e == vertex, is_face, cloud, where);
    }
  };
  if (header.encoding == Encoding::ascii) {
    TextValues values(data, where);
    read_all(values);
  } else {
    BinaryValues values(data, header.encoding == Encoding::big_endian, where);
    read_all(values);
  }
  return std::move(cloud).finish();
}

namespace {

bool is_colour(const std::string& name) {
  return name == "red" || name == "green" || name == "blue" || name == "alpha";
}

// Appends one value in the file's encoding.
template <class T>
void put(std::string& out, PlyFormat format, T value) {
  if (format == PlyFormat::ascii) {
    if constexpr (std::is_floating_point_v<T>) detail::append_number(out, value);
    else out += std::to_string(value);
    return;
  }
  char b[sizeof(T)];
  std::memcpy(b, &value, sizeof value);
  if ((format == PlyFormat::binary_big_endian) != (std::endian::native == std::endian::big))
    for (size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
  out.append(b, sizeof b);
}

}  // namespace

std::string format_ply(const PointCloudFile& cloud, PlyFormat format) {
  const std::vector<float> xyz = detail::float_values(cloud.points, 3, "points");
  const int64_t points = static_cast<int64_t>(xyz.size() / 3);
  const int64_t k = static_cast<int64_t>(cloud.property_names.size());
  const std::vector<float> columns = k ? detail::float_values(cloud.properties, k, "properties") : std::vector<float>{};
  const std::vector<int64_t> faces = detail::face_values(cloud.faces, points);
  static constexpr const char* kFormatNames[] = {"ascii", "binary_little_endian", "binary_big_endian"};
  std::string out = "ply\nformat " + std::string(kFormatNames[static_cast<int>(format)]) +
                    " 1.0\ncomment written by Strata\nelement vertex " + std::to_string(points) +
                    "\nproperty float x\nproperty float y\nproperty float z\n";
  for (const std::string& n : cloud.property_names) {
    STRATA_CHECK(!n.empty() && n.find_first_of(" \t\r\n") == std::string::npos,
                 "write_ply: property name '", n, "' is empty or holds whitespace");
    out += "property " + std::string(is_colour(n) ? "uchar " : "float ") + n + "\n";
  }
  if (!faces.empty())
    out += "element face " + std::to_string(faces.size() / 3) + "\nproperty list uchar int vertex_indices\n";
  out += "end_header\n";
  const char separator = format == PlyFormat::ascii ? ' ' : '\0';
  auto sep = [&] {
    if (separator) out += separator;
  };
  for (int64_t i = 0; i < points; ++i) {
    for (int c = 0; c < 3; ++c, sep()) put(out, format, xyz[i * 3 + c]);
    for (int64_t c = 0; c < k; ++c, sep()) {
      const float v = columns[i * k + c];
      if (is_colour(cloud.property_names[c]))
        put(out, format, static_cast<uint8_t>(std::lround(std::clamp(std::isnan(v) ? 0.0f : v, 0.0f, 255.0f))));
      else put(out, format, v);
    }
    if (separator) out.back() = '\n';
  }
  for (size_t f = 0; f < faces.size(); f += 3) {
    put(out, format, uint8_t{3});
    sep();
    for (int c = 0; c < 3; ++c, sep()) put(out, format, static_cast<int32_t>(faces[f + c]));
    if (separator) out.back() = '\n';
  }
  return out;
}

void write_ply(const std::string& path, const PointCloudFile& cloud, PlyFormat format) {
  detail::write_bytes_atomically(path, format_ply(cloud, format));
}

}  // namespace strata::points
