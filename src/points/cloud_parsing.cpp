#include "cloud_parsing.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/io/atomic_file.hpp"

namespace strata::points::detail {

std::string source_label(std::string_view format, std::string_view name) {
  std::string label(format);
  if (!name.empty()) label.append(" ").append(name);
  return label;
}

CloudBuilder::CloudBuilder(std::string where, std::vector<std::string> property_names)
    : where_(std::move(where)), names_(std::move(property_names)) {}

void CloudBuilder::reserve(uint64_t count) {
  xyz_.reserve(count * 3);
  properties_.reserve(count * names_.size());
}

void CloudBuilder::add_point(const float* xyz, const float* properties) {
  xyz_.insert(xyz_.end(), xyz, xyz + 3);
  properties_.insert(properties_.end(), properties, properties + names_.size());
}

void CloudBuilder::add_polygon(std::span<const int64_t> indices) {
  const int64_t face = static_cast<int64_t>(polygon_starts_.size()) - 1;
  STRATA_CHECK(indices.size() >= 3 && indices.size() <= static_cast<size_t>(kMaxPolygonVertices), where_,
               ": face ", face, " has ", indices.size(), " vertices; expected 3 to ", kMaxPolygonVertices);
  polygon_indices_.insert(polygon_indices_.end(), indices.begin(), indices.end());
  polygon_starts_.push_back(static_cast<int64_t>(polygon_indices_.size()));
}

PointCloudFile CloudBuilder::finish() && {
  const int64_t points = point_count();
  std::vector<int64_t> triangles;
  // A polygon of n vertices is n - 2 triangles: at most 3 indices out per index in.
  triangles.reserve(polygon_indices_.size() * 3);
  for (size_t f = 0; f + 1 < polygon_starts_.size(); ++f) {
    const int64_t* first = polygon_indices_.data() + polygon_starts_[f];
    const int64_t n = polygon_starts_[f + 1] - polygon_starts_[f];
    for (int64_t k = 0; k < n; ++k)
      STRATA_CHECK(first[k] >= 0 && first[k] < points, where_, ": face ", f, " refers to vertex ", first[k],
                   ", but the file has ", points, " vertices");
    for (int64_t k = 1; k + 1 < n; ++k) triangles.insert(triangles.end(), {first[0], first[k], first[k + 1]});
  }
  PointCloudFile cloud;
  const int64_t columns = static_cast<int64_t>(names_.size());
  cloud.points = from_vector(xyz_, Shape{points, 3});
  cloud.property_names = std::move(names_);
  cloud.properties = from_vector(properties_, Shape{points, columns});
  cloud.faces = from_vector(triangles, Shape{static_cast<int64_t>(triangles.size() / 3), 3});
  return cloud;
}

std::string_view LineCursor::next() {
  if (at_end()) return {};
  size_t end = text_.find('\n', position_);
  if (end == std::string_view::npos) end = text_.size();
  std::string_view line = text_.substr(position_, end - position_);
  position_ = std::min(end + 1, text_.size());
  ++line_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

void split_tokens(std::string_view line, std::string_view separators, std::vector<std::string_view>& tokens) {
  tokens.clear();
  size_t start = line.find_first_not_of(separators);
  while (start != std::string_view::npos) {
    size_t end = line.find_first_of(separators, start);
    if (end == std::string_view::npos) end = line.size();
    tokens.push_back(line.substr(start, end - start));
    start = line.find_first_not_of(separators, end);
  }
}

bool parse_number(std::string_view token, double& value) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);  // from_chars takes no '+'
  const char* end = token.data() + token.size();
  auto [stop, error] = std::from_chars(token.data(), end, value);
  return !token.empty() && error == std::errc() && stop == end;
}

double number_or_throw(std::string_view token, const std::string& where, std::string_view what) {
  double value = 0;
  STRATA_CHECK(parse_number(token, value), where, ": ", std::string(what), " is '", std::string(token),
               "', not a number");
  return value;
}

uint64_t count_or_throw(std::string_view token, const std::string& where, std::string_view what) {
  uint64_t value = 0;
  const char* end = token.data() + token.size();
  auto [stop, error] = std::from_chars(token.data(), end, value);
  STRATA_CHECK(!token.empty() && error == std::errc() && stop == end &&
                   value <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
               where, ": ", std::string(what), " is '", std::string(token), "'; expected a count");
  return value;
}

void check_claim(uint64_t count, uint64_t bytes_each, uint64_t bytes_left, const std::string& where,
                 std::string_view what) {
  const bool fits = bytes_each == 0 || count <= bytes_left / bytes_each;
  STRATA_CHECK(fits, where, ": ", std::string(what), " claims ", count, " x at least ", bytes_each, " bytes, but ", bytes_left,
               " bytes follow");
}

std::vector<float> float_values(const Tensor& t, int64_t columns, std::string_view what) {
  STRATA_CHECK(t.dim() == 2 && t.size(1) == columns, "point-cloud writer: ", std::string(what), " is ", t.shape().str(),
               "; expected [P, ", columns, "]");
  return t.to_vector<float>();
}

std::vector<int64_t> face_values(const Tensor& faces, int64_t vertex_count) {
  if (!faces.defined() || faces.numel() == 0) return {};
  STRATA_CHECK(faces.dim() == 2 && faces.size(1) == 3, "point-cloud writer: faces are ", faces.shape().str(),
               "; expected [F, 3]");
  std::vector<int64_t> values = faces.to_vector<int64_t>();
  for (size_t i = 0; i < values.size(); ++i)
    STRATA_CHECK(values[i] >= 0 && values[i] < vertex_count, "point-cloud writer: face ", i / 3,
                 " refers to vertex ", values[i], ", but the cloud has ", vertex_count, " points");
  return values;
}

void write_bytes_atomically(const std::string& path, const std::string& bytes) {
  io::AtomicFile file(path);
  file.write(bytes.data(), bytes.size());
  file.commit();
}

void append_number(std::string& out, float value) {
  char text[32];
  auto [end, error] = std::to_chars(text, text + sizeof text, value);
  out.append(text, end);
}

}  // namespace strata::points::detail
