// What the point-cloud readers share: the error prefix, a builder that checks faces before it
// makes tensors, a line cursor over text, number parsing and the check of a claimed count
// against the bytes present (before anything is reserved for it).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "strata/points/files.hpp"

namespace strata::points::detail {

// "PLY name" or "PLY" (bytes with no name): the start of every error message.
std::string source_label(std::string_view format, std::string_view name);

// Collects points, columns and polygons as a reader goes; finish() checks every face index
// against the vertex count (so a face element may come before the vertices) and fan-triangulates.
class CloudBuilder {
 public:
  CloudBuilder(std::string where, std::vector<std::string> property_names);

  // Room for `count` points; the caller has checked the count against the bytes present.
  void reserve(uint64_t count);
  // One point: x, y, z then one value per property name.
  void add_point(const float* xyz, const float* properties);
  // One face; refuses fewer than 3 or more than kMaxPolygonVertices indices.
  void add_polygon(std::span<const int64_t> indices);
  size_t property_count() const { return names_.size(); }
  int64_t point_count() const { return static_cast<int64_t>(xyz_.size() / 3); }

  PointCloudFile finish() &&;

 private:
  std::string where_;
  std::vector<std::string> names_;
  std::vector<float> xyz_, properties_;
  std::vector<int64_t> polygon_indices_;
  std::vector<int64_t> polygon_starts_{0};
};

// The lines of a text, ended by '\n' (a '\r' before it is dropped).
class LineCursor {
 public:
  explicit LineCursor(std::string_view text) : text_(text) {}
  bool at_end() const { return position_ >= text_.size(); }
  std::string_view next();  // the next line; "" at the end
  int64_t line_number() const { return line_; }  // of the line next() returned last, from 1
  size_t position() const { return position_; }  // offset of the byte after that line
  size_t bytes_left() const { return text_.size() - position_; }

 private:
  std::string_view text_;
  size_t position_ = 0;
  int64_t line_ = 0;
};

// Splits at any run of the separator characters; no empty tokens.
void split_tokens(std::string_view line, std::string_view separators, std::vector<std::string_view>& tokens);
inline constexpr std::string_view kWhitespace = " \t\r\f\v";

// The whole token as a number; false when it is not one.
bool parse_number(std::string_view token, double& value);
// The same, throwing "<where>: <what> is '<token>', not a number".
double number_or_throw(std::string_view token, const std::string& where, std::string_view what);
// A non-negative integer count, throwing "<where>: <what> is '<token>'; expected a count".
uint64_t count_or_throw(std::string_view token, const std::string& where, std::string_view what);

// Throws "<where>: <what> claims <count> x at least <bytes_each> bytes, but <left> bytes follow"
// unless count * bytes_each (computed without overflow) fits in the bytes left.
void check_claim(uint64_t count, uint64_t bytes_each, uint64_t bytes_left, const std::string& where,
                 std::string_view what);

// Copies a float32 [P, 3] / [P, K] / int64 [F, 3] tensor's values out, row-major (any layout).
std::vector<float> float_values(const Tensor& t, int64_t columns, std::string_view what);
std::vector<int64_t> face_values(const Tensor& faces, int64_t vertex_count);

// Writes bytes to `path` atomically (io::AtomicFile).
void write_bytes_atomically(const std::string& path, const std::string& bytes);

// Shortest text that reads back as the same float32 (std::to_chars).
void append_number(std::string& out, float value);

}  // namespace strata::points::detail
