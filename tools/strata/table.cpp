#include "table.hpp"

#include <algorithm>
#include <cstdlib>

#include "strata/core/error.hpp"

namespace strata::cli {

namespace {

// Display width: UTF-8 continuation bytes take no column, so names in any script stay aligned.
size_t width(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

}  // namespace

Table::Table(std::vector<std::string> header) : header_(std::move(header)) {}

void Table::add_row(std::vector<std::string> cells) {
  STRATA_CHECK(cells.size() == header_.size(), "Table::add_row: expected ", header_.size(), " cells, got ",
               cells.size());
  rows_.push_back(std::move(cells));
}

void Table::print(std::ostream& out) const {
  const size_t n = header_.size();
  std::vector<size_t> widths(n);
  std::vector<bool> numeric(n, !rows_.empty());
  for (size_t c = 0; c < n; ++c) widths[c] = width(header_[c]);
  for (const auto& row : rows_)
    for (size_t c = 0; c < n; ++c) {
      widths[c] = std::max(widths[c], width(row[c]));
      if (!row[c].empty() && !is_number(row[c])) numeric[c] = false;
    }
  auto print_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t c = 0; c < n; ++c) {
      std::string pad(widths[c] - width(row[c]), ' ');
      line += numeric[c] ? pad + row[c] : row[c] + (c + 1 < n ? pad : "");
      if (c + 1 < n) line += "  ";
    }
    out << line << '\n';
  };
  print_row(header_);
  std::vector<std::string> rule(n);
  for (size_t c = 0; c < n; ++c) rule[c] = std::string(widths[c], '-');
  print_row(rule);
  for (const auto& row : rows_) print_row(row);
}

}  // namespace strata::cli
