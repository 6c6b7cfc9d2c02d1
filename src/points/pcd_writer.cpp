// Writing PCD (VERSION .7): every value as a 4-byte field, colours packed into "rgb" (float,
// as PCL and Open3D store it) or "rgba" (uint32) when red, green and blue are all present.
#include <algorithm>
#include <bit>
#include <cmath>

#include "cloud_parsing.hpp"
#include "lzf.hpp"
#include "strata/core/error.hpp"

namespace strata::points {
namespace {

// One written field: a coordinate, a column, or the colours packed.
struct OutField {
  std::string name;
  char type = 'F';
  int source = 0;  // 0..2 a coordinate, 3 + k column k; -1 the packed colour
};

uint8_t channel(float v) { return static_cast<uint8_t>(std::lround(std::clamp(std::isnan(v) ? 0.0f : v, 0.0f, 255.0f))); }

}  // namespace

std::string format_pcd(const PointCloudFile& cloud, PcdData data) {
  const std::vector<float> xyz = detail::float_values(cloud.points, 3, "points");
  const size_t points = xyz.size() / 3;
  const std::vector<std::string>& names = cloud.property_names;
  const size_t k = names.size();
  const std::vector<float> columns = k ? detail::float_values(cloud.properties, k, "properties") : std::vector<float>{};
  auto column = [&](std::string_view name) {
    return static_cast<int>(std::find(names.begin(), names.end(), name) - names.begin());
  };
  const int rgba[4] = {column("red"), column("green"), column("blue"), column("alpha")};
  const bool packed = rgba[0] < int(k) && rgba[1] < int(k) && rgba[2] < int(k);
  const bool alpha = packed && rgba[3] < int(k);

  std::vector<OutField> fields = {{"x", 'F', 0}, {"y", 'F', 1}, {"z", 'F', 2}};
  for (size_t c = 0; c < k; ++c) {
    STRATA_CHECK(!names[c].empty() && names[c].find_first_of(" \t\r\n") == std::string::npos, "write_pcd: column '",
                 names[c], "' is empty or holds whitespace");
    const bool in_packed = packed && (int(c) == rgba[0] || int(c) == rgba[1] || int(c) == rgba[2] ||
                                      (alpha && int(c) == rgba[3]));
    if (!in_packed) fields.push_back({names[c], 'F', 3 + int(c)});
  }
  if (packed) fields.push_back({alpha ? "rgba" : "rgb", alpha ? 'U' : 'F', -1});

  // The 4 bytes of field f for point p, as a uint32.
  auto bits = [&](size_t p, const OutField& f) -> uint32_t {
    if (f.source >= 0) return std::bit_cast<uint32_t>(f.source < 3 ? xyz[p * 3 + f.source] : columns[p * k + f.source - 3]);
    const float* row = columns.data() + p * k;
    return uint32_t{channel(row[rgba[0]])} << 16 | uint32_t{channel(row[rgba[1]])} << 8 | channel(row[rgba[2]]) |
           (alpha ? uint32_t{channel(row[rgba[3]])} << 24 : 0);
  };

  std::string out = "# .PCD v0.7 - Point Cloud Data file format\nVERSION 0.7\nFIELDS";
  for (const OutField& f : fields) out += " " + f.name;
  out += "\nSIZE";
  for (size_t i = 0; i < fields.size(); ++i) out += " 4";
  out += "\nTYPE";
  for (const OutField& f : fields) out += std::string(" ") + f.type;
  out += "\nCOUNT";
  for (size_t i = 0; i < fields.size(); ++i) out += " 1";
  static constexpr const char* kDataNames[] = {"ascii", "binary", "binary_compressed"};
  out += "\nWIDTH " + std::to_string(points) + "\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS " +
         std::to_string(points) + "\nDATA " + kDataNames[static_cast<int>(data)] + "\n";

  auto append_bits = [](std::string& to, uint32_t b) {
    for (int i = 0; i < 4; ++i) to.push_back(static_cast<char>(b >> (8 * i)));  // little-endian
  };
  if (data == PcdData::ascii) {
    for (size_t p = 0; p < points; ++p) {
      for (const OutField& f : fields) {
        const uint32_t b = bits(p, f);
        // A packed colour as the integer of its bits, as PCL writes it: as a float it is often a
        // denormal or a NaN, which printing through floating point need not keep.
        if (f.type == 'U' || f.source < 0) out += std::to_string(b);
        else detail::append_number(out, std::bit_cast<float>(b));
        out += ' ';
      }
      out.back() = '\n';
    }
  } else if (data == PcdData::binary) {
    for (size_t p = 0; p < points; ++p)
      for (const OutField& f : fields) append_bits(out, bits(p, f));
  } else {
    std::string by_field;  // every point's value of field 0, then of field 1, ...
    by_field.reserve(points * fields.size() * 4);
    for (const OutField& f : fields)
      for (size_t p = 0; p < points; ++p) append_bits(by_field, bits(p, f));
    const std::string compressed = detail::lzf_compress(by_field);
    STRATA_CHECK(by_field.size() <= UINT32_MAX, "write_pcd: ", by_field.size(),
                 " bytes of points do not fit binary_compressed's 32-bit size");
    append_bits(out, static_cast<uint32_t>(compressed.size()));
    append_bits(out, static_cast<uint32_t>(by_field.size()));
    out += compressed;
  }
  return out;
}

void write_pcd(const std::string& path, const PointCloudFile& cloud, PcdData data) {
  detail::write_bytes_atomically(path, format_pcd(cloud, data));
}

}  // namespace strata::points
