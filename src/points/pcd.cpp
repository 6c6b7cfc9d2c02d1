// PCD (the Point Cloud Library's format, VERSION .7): a text header naming the fields, their
// sizes, types and counts, then the points as ascii lines, binary records, or
// binary_compressed: LZF of the fields laid out one after another (all of field 0, then all of
// field 1, ...), after its compressed and uncompressed sizes as two little-endian uint32.
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "cloud_parsing.hpp"
#include "lzf.hpp"
#include "strata/core/error.hpp"

namespace strata::points {
namespace {

struct Field {
  std::string name;
  int size = 4;
  char type = 'F';  // F float, U unsigned, I signed
  uint64_t count = 1;
};

enum class Data { ascii, binary, binary_compressed };

struct PcdHeader {
  std::vector<Field> fields;
  uint64_t points = 0;
  Data data = Data::ascii;
  size_t data_start = 0;
};

uint64_t checked_product(uint64_t a, uint64_t b, const std::string& where, std::string_view what) {
  STRATA_CHECK(b == 0 || a <= UINT64_MAX / b, where, ": ", std::string(what), " ", a, " x ", b, " overflows");
  return a * b;
}

PcdHeader parse_pcd_header(std::string_view bytes, const std::string& where) {
  detail::LineCursor lines(bytes);
  PcdHeader header;
  std::vector<std::string_view> tokens;
  std::vector<std::string_view> sizes, types, counts;
  std::optional<uint64_t> width, height, points;
  bool have_data = false;
  while (!have_data) {
    STRATA_CHECK(!lines.at_end(), where, ": the header has no DATA line");
    std::string_view line = lines.next();
    STRATA_CHECK(lines.position() <= kMaxHeaderBytes, where, ": the header is longer than ", kMaxHeaderBytes,
                 " bytes");
    detail::split_tokens(line, detail::kWhitespace, tokens);
    if (tokens.empty() || tokens[0].front() == '#') continue;
    const std::string at = where + ": header line " + std::to_string(lines.line_number());
    const std::string_view key = tokens[0];
    const std::vector<std::string_view> values(tokens.begin() + 1, tokens.end());
    STRATA_CHECK(values.size() <= kMaxProperties, at, ": more than ", kMaxProperties, " values");
    auto one_count = [&](std::optional<uint64_t>& slot) {
      STRATA_CHECK(values.size() == 1, at, ": expected one number after ", std::string(key));
      slot = detail::count_or_throw(values[0], at, key);
    };
    if (key == "VERSION" || key == "VIEWPOINT") continue;  // nothing in them changes the data
    if (key == "FIELDS" || key == "COLUMNS") {
      for (std::string_view name : values) header.fields.push_back({std::string(name)});
    } else if (key == "SIZE") sizes = values;
    else if (key == "TYPE") types = values;
    else if (key == "COUNT") counts = values;
    else if (key == "WIDTH") one_count(width);
    else if (key == "HEIGHT") one_count(height);
    else if (key == "POINTS") one_count(points);
    else if (key == "DATA") {
      STRATA_CHECK(values.size() == 1, at, ": expected 'DATA ascii|binary|binary_compressed'");
      if (values[0] == "ascii") header.data = Data::ascii;
      else if (values[0] == "binary") header.data = Data::binary;
      else if (values[0] == "binary_compressed") header.data = Data::binary_compressed;
      else throw Error(at + ": DATA '" + std::string(values[0]) + "' is not ascii, binary or binary_compressed");
      have_data = true;
    } else {
      throw Error(at + ": unknown keyword '" + std::string(key) + "'");
    }
  }
  const size_t n = header.fields.size();
  STRATA_CHECK(n > 0, where, ": no FIELDS line");
  STRATA_CHECK(sizes.size() == n && types.size() == n && (counts.empty() || counts.size() == n), where, ": ", n,
               " FIELDS but ", sizes.size(), " SIZE, ", types.size(), " TYPE and ", counts.size(), " COUNT values");
  uint64_t columns = 0;
  for (size_t i = 0; i < n; ++i) {
    Field& f = header.fields[i];
    const std::string at = where + ": field '" + f.name + "'";
    const uint64_t size = detail::count_or_throw(sizes[i], at, "SIZE");
    STRATA_CHECK(types[i].size() == 1 && std::string_view("FUI").find(types[i][0]) != std::string_view::npos, at,
                 ": TYPE '", std::string(types[i]), "' is not F, U or I");
    f.type = types[i][0];
    STRATA_CHECK(size == 1 || size == 2 || size == 4 || size == 8, at, ": SIZE ", size, " is not 1, 2, 4 or 8");
    STRATA_CHECK(f.type != 'F' || size == 4 || size == 8, at, ": a float field of SIZE ", size);
    f.size = static_cast<int>(size);
    if (!counts.empty()) f.count = detail::count_or_throw(counts[i], at, "COUNT");
    STRATA_CHECK(f.count >= 1 && f.count <= kMaxProperties, at, ": COUNT ", f.count, " is not 1 to ",
                 kMaxProperties);
    columns += f.count;
  }
  STRATA_CHECK(columns <= kMaxProperties, where, ": the fields hold ", columns, " values a point; at most ",
               kMaxProperties);
  if (width && height) {
    const uint64_t grid = checked_product(*width, *height, where, "WIDTH x HEIGHT");
    STRATA_CHECK(!points || *points == grid, where, ": POINTS ", *points, " but WIDTH x HEIGHT is ", grid);
    points = grid;
  }
  STRATA_CHECK(points, where, ": neither POINTS nor WIDTH and HEIGHT");
  header.points = *points;
  header.data_start = lines.position();
  return header;
}

// One stored value, little-endian as PCL and Open3D write them, whatever this machine's order.
double decode(const unsigned char* b, const Field& f) {
  uint64_t bits = 0;
  for (int k = 0; k < f.size; ++k) bits |= uint64_t{b[k]} << (8 * k);
  if (f.type == 'F') return f.size == 4 ? std::bit_cast<float>(static_cast<uint32_t>(bits)) : std::bit_cast<double>(bits);
  if (f.type == 'U') return static_cast<double>(bits);
  const int shift = 64 - 8 * f.size;  // sign-extend
  return static_cast<double>(static_cast<int64_t>(bits << shift) >> shift);
}

void encode(double value, const Field& f, unsigned char* b) {
  uint64_t bits = 0;
  if (f.type == 'F') bits = f.size == 4 ? std::bit_cast<uint32_t>(static_cast<float>(value)) : std::bit_cast<uint64_t>(value);
  else if (f.type == 'U') bits = static_cast<uint64_t>(value);
  else bits = static_cast<uint64_t>(static_cast<int64_t>(value));
  for (int k = 0; k < std::min(f.size, 8); ++k) b[k] = static_cast<unsigned char>(bits >> (8 * k));
}

bool is_packed_colour(const Field& f) { return (f.name == "rgb" || f.name == "rgba") && f.size == 4 && f.count == 1; }

// Where each stored value goes: a coordinate, a column, or nowhere ("_" padding).
struct Layout {
  std::vector<std::string> names;
  std::vector<int> slot;  // per field value (fields in order, counts expanded): 0..2 xyz, 3+ column, -1 skip
};

Layout layout_of(const std::vector<Field>& fields, const std::string& where) {
  Layout layout;
  bool has[3] = {false, false, false};
  for (const Field& f : fields) {
    const bool axis = f.count == 1 && (f.name == "x" || f.name == "y" || f.name == "z");
    if (axis) {
      STRATA_CHECK(!has[f.name[0] - 'x'], where, ": field '", f.name, "' appears twice");
      has[f.name[0] - 'x'] = true;
      layout.slot.push_back(f.name[0] - 'x');
    } else if (f.name == "_") {
      layout.slot.insert(layout.slot.end(), f.count, -1);
    } else if (is_packed_colour(f)) {
      layout.slot.push_back(3 + static_cast<int>(layout.names.size()));
      for (const char* c : {"red", "green", "blue", "alpha"})
        if (c[0] != 'a' || f.name == "rgba") layout.names.push_back(c);
    } else {
      for (uint64_t k = 0; k < f.count; ++k) {
        layout.slot.push_back(3 + static_cast<int>(layout.names.size()));
        layout.names.push_back(f.count == 1 ? f.name : f.name + "_" + std::to_string(k));
      }
    }
  }
  STRATA_CHECK(has[0] && has[1] && has[2], where, ": the fields need x, y and z");
  return layout;
}

// Per-point state while its values arrive: coordinates and columns.
struct PointValues {
  float xyz[3];
  std::vector<float> columns;
  void set(int slot, const Field& f, const unsigned char* raw) {
    if (slot < 0) return;
    if (slot < 3) {
      xyz[slot] = static_cast<float>(decode(raw, f));
    } else if (is_packed_colour(f)) {
      const uint32_t packed = static_cast<uint32_t>(raw[0]) | raw[1] << 8 | raw[2] << 16 | uint32_t{raw[3]} << 24;
      columns[slot - 3] = static_cast<float>((packed >> 16) & 0xff);
      columns[slot - 2] = static_cast<float>((packed >> 8) & 0xff);
      columns[slot - 1] = static_cast<float>(packed & 0xff);
      if (f.name == "rgba") columns[slot] = static_cast<float>(packed >> 24);
    } else {
      columns[slot - 3] = static_cast<float>(decode(raw, f));
    }
  }
};

// An ascii value stored as the field's type, so that packed colours and integers keep their bits.
void text_to_raw(std::string_view token, const Field& f, unsigned char* raw, const std::string& at) {
  // PCL writes a packed colour as the integer of its bits, float field or not (some colours are
  // NaN as floats); Open3D writes the float. A plain integer token is the bits.
  if (is_packed_colour(f) && !token.empty() && token.find_first_not_of("0123456789") == std::string_view::npos) {
    const uint64_t bits = detail::count_or_throw(token, at, "a packed colour");
    STRATA_CHECK(bits <= UINT32_MAX, at, ": packed colour ", bits, " is more than 32 bits");
    for (int k = 0; k < 4; ++k) raw[k] = static_cast<unsigned char>(bits >> (8 * k));
    return;
  }
  if (f.type == 'F' && f.size == 4) {
    // Open3D writes a packed colour as its float, usually one of float's subnormals. Strata runs
    // with subnormals flushed to zero (kernels/cpu/dnnl_context.cpp), so such a value is turned
    // into its bits in double, where it is a normal number: the bits count units of 2^-149.
    const double v = detail::number_or_throw(token, at, "a value");
    const double magnitude = std::abs(v);
    const uint32_t bits = magnitude < std::numeric_limits<float>::min()
                              ? static_cast<uint32_t>(std::llround(std::ldexp(magnitude, 149))) |
                                    (std::signbit(v) ? 0x80000000u : 0u)
                              : std::bit_cast<uint32_t>(static_cast<float>(v));
    for (int k = 0; k < 4; ++k) raw[k] = static_cast<unsigned char>(bits >> (8 * k));
  } else {
    const double v = detail::number_or_throw(token, at, "a value");
    STRATA_CHECK(f.type == 'F' || (std::abs(v) < 1.8e19 && (f.type == 'U' ? v >= 0 : std::abs(v) < 9.2e18)), at,
                 ": value ", v, " does not fit field '", f.name, "'");
    encode(v, f, raw);
  }
}

}  // namespace

PointCloudFile parse_pcd(std::string_view bytes, std::string_view name) {
  const std::string where = detail::source_label("PCD", name);
  const PcdHeader header = parse_pcd_header(bytes, where);
  const Layout layout = layout_of(header.fields, where);
  // The fields in stored order, counts expanded: one entry per stored value.
  std::vector<const Field*> values;
  uint64_t point_bytes = 0;
  for (const Field& f : header.fields) {
    values.insert(values.end(), f.count, &f);
    point_bytes += f.size * f.count;
  }
  std::string_view data = bytes.substr(header.data_start);
  detail::CloudBuilder cloud(where, layout.names);
  PointValues point{{0, 0, 0}, std::vector<float>(layout.names.size())};

  if (header.data == Data::ascii) {
    unsigned char raw[8];
    detail::check_claim(header.points, values.size(), data.size(), where, "POINTS");
    cloud.reserve(header.points);
    detail::LineCursor lines(data);
    std::vector<std::string_view> tokens;
    for (uint64_t p = 0; p < header.points; ++p) {
      do {
        STRATA_CHECK(!lines.at_end(), where, ": the data ends after ", p, " of ", header.points, " points");
        detail::split_tokens(lines.next(), detail::kWhitespace, tokens);
      } while (tokens.empty());
      const std::string at = where + ": point " + std::to_string(p);
      STRATA_CHECK(tokens.size() == values.size(), at, " has ", tokens.size(), " values; expected ", values.size());
      for (size_t v = 0; v < values.size(); ++v) {
        text_to_raw(tokens[v], *values[v], raw, at);
        point.set(layout.slot[v], *values[v], raw);
      }
      cloud.add_point(point.xyz, point.columns.data());
    }
    return std::move(cloud).finish();
  }

  const uint64_t total = checked_product(header.points, point_bytes, where, "POINTS x bytes a point");
  std::string decompressed;
  if (header.data == Data::binary_compressed) {
    STRATA_CHECK(data.size() >= 8, where, ": binary_compressed data needs its two sizes; ", data.size(),
                 " bytes follow the header");
    const auto* b = reinterpret_cast<const unsigned char*>(data.data());
    const uint32_t compressed = b[0] | b[1] << 8 | b[2] << 16 | uint32_t{b[3]} << 24;
    const uint32_t uncompressed = b[4] | b[5] << 8 | b[6] << 16 | uint32_t{b[7]} << 24;
    STRATA_CHECK(compressed <= data.size() - 8, where, ": ", compressed, " compressed bytes claimed, ",
                 data.size() - 8, " follow");
    STRATA_CHECK(uncompressed == total, where, ": the data uncompresses to ", uncompressed, " bytes; ",
                 header.points, " points of ", point_bytes, " bytes are ", total);
    decompressed = detail::lzf_decompress(data.substr(8, compressed), uncompressed, where);
    data = decompressed;
  }
  detail::check_claim(header.points, point_bytes, data.size(), where, "POINTS");
  cloud.reserve(header.points);
  const auto* base = reinterpret_cast<const unsigned char*>(data.data());
  // Where value v of point p is: records one after another (binary), or field by field with each
  // field's values for every point together (binary_compressed).
  std::vector<uint64_t> offset(values.size());  // of point 0's value v
  uint64_t in_record = 0, field_start = 0;
  for (size_t v = 0; v < values.size(); ++v) {
    if (v == 0 || values[v] != values[v - 1]) field_start = in_record;
    offset[v] = header.data == Data::binary ? in_record : field_start * header.points + (in_record - field_start);
    in_record += values[v]->size;
  }
  for (uint64_t p = 0; p < header.points; ++p) {
    for (size_t v = 0; v < values.size(); ++v) {
      const Field& f = *values[v];
      // In the field-by-field layout a field's count values stay together for each point.
      const uint64_t at = header.data == Data::binary ? p * point_bytes + offset[v]
                                                      : offset[v] + p * f.size * f.count;
      point.set(layout.slot[v], f, base + at);
    }
    cloud.add_point(point.xyz, point.columns.data());
  }
  return std::move(cloud).finish();
}

}  // namespace strata::points
