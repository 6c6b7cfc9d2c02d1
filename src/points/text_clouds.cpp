// Point clouds as plain text, one point a line: XYZ (whitespace- or comma-separated numbers, as
// Open3D and ModelNet40's resampled .txt files write them) and CSV with or without a header row.
#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>

#include "cloud_parsing.hpp"
#include "strata/core/error.hpp"

namespace strata::points {
namespace {

std::vector<std::string> numbered_columns(size_t from, size_t to) {
  std::vector<std::string> names;
  for (size_t c = from; c < to; ++c) names.push_back("column_" + std::to_string(c));
  return names;
}

// Rows of numbers into a cloud: `xyz` are the three coordinate columns, the others (in order)
// are the properties `names`. An empty field (CSV) is NaN, as data::read_csv reads it.
class RowReader {
 public:
  RowReader(const std::string& where, size_t columns, const size_t (&xyz)[3], std::vector<std::string> names)
      : where_(where), columns_(columns), cloud_(where, std::move(names)), values_(columns) {
    std::copy(xyz, xyz + 3, xyz_);
    for (size_t c = 0; c < columns; ++c)
      if (std::find(xyz, xyz + 3, c) == xyz + 3) others_.push_back(c);
  }
  void add(const std::vector<std::string_view>& fields, int64_t line) {
    const std::string at = where_ + ": line " + std::to_string(line);
    STRATA_CHECK(fields.size() == columns_, at, ": ", fields.size(), " values; expected ", columns_,
                 " like the first row");
    for (size_t c = 0; c < columns_; ++c)
      values_[c] = fields[c].empty() ? std::numeric_limits<float>::quiet_NaN()
                                     : static_cast<float>(detail::number_or_throw(fields[c], at, "a value"));
    const float xyz[3] = {values_[xyz_[0]], values_[xyz_[1]], values_[xyz_[2]]};
    properties_.clear();
    for (size_t c : others_) properties_.push_back(values_[c]);
    cloud_.add_point(xyz, properties_.data());
  }
  PointCloudFile finish() && { return std::move(cloud_).finish(); }

 private:
  std::string where_;
  size_t columns_;
  size_t xyz_[3];
  std::vector<size_t> others_;
  detail::CloudBuilder cloud_;
  std::vector<float> values_, properties_;
};

void check_columns(size_t columns, const std::string& where) {
  STRATA_CHECK(columns >= 3 && columns <= kMaxProperties + 3, where, ": the first row has ", columns,
               " values; expected x y z and at most ", kMaxProperties, " more");
}

bool is_content(std::string_view line) {
  const size_t first = line.find_first_not_of(" \t\r");
  return first != std::string_view::npos && line[first] != '#';
}

// CSV fields, empty ones kept, surrounding blanks and double quotes removed.
void split_fields(std::string_view line, std::vector<std::string_view>& fields) {
  fields.clear();
  for (size_t start = 0;;) {
    size_t end = std::min(line.find(',', start), line.size());
    std::string_view f = line.substr(start, end - start);
    while (!f.empty() && (f.front() == ' ' || f.front() == '\t')) f.remove_prefix(1);
    while (!f.empty() && (f.back() == ' ' || f.back() == '\t')) f.remove_suffix(1);
    if (f.size() >= 2 && f.front() == '"' && f.back() == '"') f = f.substr(1, f.size() - 2);
    fields.push_back(f);
    if (end == line.size()) return;
    start = end + 1;
  }
}

constexpr size_t kFirstThree[3] = {0, 1, 2};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

PointCloudFile parse_xyz(std::string_view bytes, std::string_view name) {
  const std::string where = detail::source_label("XYZ", name);
  detail::LineCursor lines(bytes);
  std::vector<std::string_view> tokens;
  std::optional<RowReader> rows;
  while (!lines.at_end()) {
    std::string_view line = lines.next();
    if (!is_content(line)) continue;
    detail::split_tokens(line, " \t\r,", tokens);
    if (!rows) {
      check_columns(tokens.size(), where);
      rows.emplace(where, tokens.size(), kFirstThree, numbered_columns(3, tokens.size()));
    }
    rows->add(tokens, lines.line_number());
  }
  if (!rows) return detail::CloudBuilder(where, {}).finish();
  return std::move(*rows).finish();
}

PointCloudFile parse_csv(std::string_view bytes, std::string_view name) {
  const std::string where = detail::source_label("CSV", name);
  detail::LineCursor lines(bytes);
  std::vector<std::string_view> fields;
  std::optional<RowReader> rows;
  while (!lines.at_end()) {
    std::string_view line = lines.next();
    if (!is_content(line)) continue;
    split_fields(line, fields);
    if (rows) {
      rows->add(fields, lines.line_number());
      continue;
    }
    check_columns(fields.size(), where);
    double unused = 0;
    const bool header = !std::all_of(fields.begin(), fields.end(),
                                     [&](std::string_view f) { return detail::parse_number(f, unused); });
    size_t xyz[3] = {0, 1, 2};
    std::vector<std::string> names = numbered_columns(0, fields.size());
    if (header) {
      for (size_t c = 0; c < fields.size(); ++c) names[c] = std::string(fields[c]);
      for (size_t axis = 0; axis < 3; ++axis) {
        const std::string wanted(1, static_cast<char>('x' + axis));
        auto named = std::find_if(names.begin(), names.end(), [&](const std::string& n) { return lower(n) == wanted; });
        if (named == names.end()) {  // no x, y, z columns: the first three, as without a header
          std::copy(kFirstThree, kFirstThree + 3, xyz);
          break;
        }
        xyz[axis] = static_cast<size_t>(named - names.begin());
      }
    }
    std::vector<std::string> others;
    for (size_t c = 0; c < names.size(); ++c)
      if (std::find(xyz, xyz + 3, c) == xyz + 3) others.push_back(names[c]);
    rows.emplace(where, fields.size(), xyz, std::move(others));
    if (!header) rows->add(fields, lines.line_number());
  }
  if (!rows) return detail::CloudBuilder(where, {}).finish();
  return std::move(*rows).finish();
}

std::string format_xyz(const PointCloudFile& cloud) {
  const std::vector<float> xyz = detail::float_values(cloud.points, 3, "points");
  const size_t k = cloud.property_names.size();
  const std::vector<float> columns = k ? detail::float_values(cloud.properties, k, "properties") : std::vector<float>{};
  std::string out;
  for (size_t i = 0; i < xyz.size() / 3; ++i) {
    for (size_t c = 0; c < 3 + k; ++c) {
      detail::append_number(out, c < 3 ? xyz[i * 3 + c] : columns[i * k + c - 3]);
      out += c + 1 < 3 + k ? ' ' : '\n';
    }
  }
  return out;
}

void write_xyz(const std::string& path, const PointCloudFile& cloud) {
  detail::write_bytes_atomically(path, format_xyz(cloud));
}

}  // namespace strata::points
