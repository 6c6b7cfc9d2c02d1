#include "strata/data/csv.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>

#include "strata/core/checked_size.hpp"
#include "strata/core/factory.hpp"

namespace strata::data {

namespace {

std::vector<std::string> split_fields(const std::string& line, char delimiter, const std::string& where) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') fields.back() += '"', ++i;
      else if (c == '"') quoted = false;
      else fields.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == delimiter) {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  STRATA_CHECK(!quoted, "read_csv: ", where, ": unterminated quoted field");
  return fields;
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

bool parse_float(const std::string& s, float& out) {
  if (s.empty()) {
    out = std::numeric_limits<float>::quiet_NaN();
    return true;
  }
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && p == end;
}

bool parse_int(const std::string& s, int64_t& out) {
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, out);
  return !s.empty() && ec == std::errc() && p == end;
}

int column_index(const std::vector<std::string>& header, const std::string& name, const std::string& path) {
  auto it = std::find(header.begin(), header.end(), name);
  STRATA_CHECK(it != header.end(), "read_csv: ", path, ": no column named '", name, "' in the header");
  return static_cast<int>(it - header.begin());
}

}  // namespace

CsvTable read_csv(const std::string& path, const CsvOptions& options) {
  std::ifstream in(path);
  STRATA_CHECK(in.good(), "read_csv: cannot open ", path);
  std::string line;
  STRATA_CHECK(static_cast<bool>(std::getline(in, line)), "read_csv: ", path, ": empty file (expected a header row)");
  std::vector<std::string> header = split_fields(line, options.delimiter, path + ":1");
  for (std::string& h : header) h = trim(h);

  const int label = options.label_column.empty() ? -1 : column_index(header, options.label_column, path);
  std::vector<bool> is_feature(header.size(), true);
  if (label >= 0) is_feature[label] = false;
  for (const std::string& name : options.ignore_columns) is_feature[column_index(header, name, path)] = false;

  CsvTable table;
  for (size_t c = 0; c < header.size(); ++c)
    if (is_feature[c]) table.feature_names.push_back(header[c]);
  std::vector<float> features;
  std::vector<std::string> label_text;
  int64_t rows = 0;
  for (int64_t line_no = 2; std::getline(in, line); ++line_no) {
    if (trim(line).empty()) continue;
    const std::string where = path + ":" + std::to_string(line_no);
    const std::vector<std::string> fields = split_fields(line, options.delimiter, where);
    STRATA_CHECK(fields.size() == header.size(), "read_csv: ", where, ": ", fields.size(), " fields, expected ",
                 header.size(), " like the header");
    for (size_t c = 0; c < fields.size(); ++c) {
      const std::string value = trim(fields[c]);
      if (static_cast<int>(c) == label) {
        label_text.push_back(value);
      } else if (is_feature[c]) {
        float v;
        STRATA_CHECK(parse_float(value, v), "read_csv: ", where, ": column '", header[c], "' holds '", value,
                     "', expected a number");
        features.push_back(v);
      }
    }
    ++rows;
    // The table grows with the file, up to four bytes of float per byte (empty fields): bounded
    // like a tensor read from a file, row by row.
    checked_size(std::array<int64_t, 2>{rows, static_cast<int64_t>(table.feature_names.size())}, sizeof(float),
                 "read_csv: " + where);
  }
  table.features = from_vector(features, {rows, static_cast<int64_t>(table.feature_names.size())});
  if (label < 0) return table;

  std::vector<int64_t> ids(rows);
  bool integers = true;
  for (int64_t r = 0; r < rows && integers; ++r) integers = parse_int(label_text[r], ids[r]);
  if (!integers) {
    std::map<std::string, int64_t> index;
    for (const std::string& name : label_text) index.emplace(name, 0);
    for (auto& [name, id] : index) {
      id = static_cast<int64_t>(table.classes.size());
      table.classes.push_back(name);
    }
    for (int64_t r = 0; r < rows; ++r) ids[r] = index.at(label_text[r]);
  }
  table.labels = from_vector(ids);
  return table;
}

Dataset CsvTable::dataset() const {
  if (labels.defined()) return TensorDataset({features, labels});
  return TensorDataset({features});
}

}  // namespace strata::data
