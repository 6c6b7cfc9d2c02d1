#include "darknet_sections.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "strata/core/error.hpp"

namespace strata::vision::detail {
namespace {

// Outside text quoted in a message: short and printable.
std::string quoted(std::string_view s) {
  std::string out = "'";
  for (size_t i = 0; i < s.size() && i < 40; ++i)
    out += std::isprint(static_cast<unsigned char>(s[i])) ? s[i] : '?';
  return out + (s.size() > 40 ? "...'" : "'");
}

}  // namespace

void CfgSection::add(std::string key, std::string value, int line) {
  for (const Entry& e : entries_)
    STRATA_CHECK(e.key != key, "darknet cfg line ", line, ": key ", quoted(key), " repeats line ", e.line, " in [",
                 name_, "]");
  entries_.push_back({std::move(key), std::move(value), line});
}

CfgSection::Entry* CfgSection::find(const char* key) {
  for (Entry& e : entries_)
    if (e.key == key) {
      e.used = true;
      return &e;
    }
  return nullptr;
}

std::string CfgSection::where(const char* key) const {
  for (const Entry& e : entries_)
    if (key && e.key == key) return "darknet cfg line " + std::to_string(e.line) + " (" + key + " in [" + name_ + "])";
  return "darknet cfg line " + std::to_string(line_) + " ([" + name_ + "])";
}

int64_t CfgSection::integer(const char* key, int64_t fallback, int64_t lo, int64_t hi) {
  const Entry* e = find(key);
  if (!e) return fallback;
  int64_t v = 0;
  const char* end = e->value.data() + e->value.size();
  auto [ptr, ec] = std::from_chars(e->value.data(), end, v);
  STRATA_CHECK(ec == std::errc() && ptr == end, where(key), ": expected an integer, got ", quoted(e->value));
  STRATA_CHECK(v >= lo && v <= hi, where(key), ": ", v, " is outside [", lo, ", ", hi, "]");
  return v;
}

namespace {

// A finite number as darknet's atof reads it ("0.7", ".7", "1e-3"), the whole text.
bool parse_real(const std::string& s, double& v) {
  if (s.empty() || s.size() > 64) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(v);
}

}  // namespace

double CfgSection::real(const char* key, double fallback, double lo, double hi) {
  const Entry* e = find(key);
  if (!e) return fallback;
  double v = 0;
  STRATA_CHECK(parse_real(e->value, v), where(key), ": expected a number, got ", quoted(e->value));
  STRATA_CHECK(v >= lo && v <= hi, where(key), ": ", v, " is outside [", lo, ", ", hi, "]");
  return v;
}

std::string CfgSection::text(const char* key, const std::string& fallback, std::initializer_list<const char*> allowed) {
  const Entry* e = find(key);
  if (!e) return fallback;
  std::string known;
  for (const char* a : allowed) {
    if (e->value == a) return e->value;
    known += (known.empty() ? "" : ", ") + std::string(a);
  }
  throw Error(where(key) + ": " + quoted(e->value) + " is not one of " + known);
}

namespace {

std::vector<std::string> split_commas(const std::string& s, size_t max_items, const std::string& where) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    const size_t comma = s.find(',', start);
    items.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    STRATA_CHECK(items.size() <= max_items, where, ": more than ", max_items, " values");
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  // darknet writes "anchors = 10,14,  23,27," now and then: one trailing comma is allowed.
  if (items.size() > 1 && items.back().empty()) items.pop_back();
  return items;
}

}  // namespace

std::vector<int64_t> CfgSection::integers(const char* key, int64_t lo, int64_t hi, size_t max_items, bool* present) {
  const Entry* e = find(key);
  if (present) *present = e != nullptr;
  if (!e) return {};
  std::vector<int64_t> out;
  for (const std::string& item : split_commas(e->value, max_items, where(key))) {
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    STRATA_CHECK(!item.empty() && ec == std::errc() && ptr == item.data() + item.size(), where(key),
                 ": expected integers separated by commas, got ", quoted(e->value));
    STRATA_CHECK(v >= lo && v <= hi, where(key), ": ", v, " is outside [", lo, ", ", hi, "]");
    out.push_back(v);
  }
  return out;
}

std::vector<double> CfgSection::reals(const char* key, double lo, double hi, size_t max_items) {
  const Entry* e = find(key);
  if (!e) return {};
  std::vector<double> out;
  for (const std::string& item : split_commas(e->value, max_items, where(key))) {
    double v = 0;
    STRATA_CHECK(parse_real(item, v), where(key), ": expected numbers separated by commas, got ", quoted(e->value));
    STRATA_CHECK(v >= lo && v <= hi, where(key), ": ", v, " is outside [", lo, ", ", hi, "]");
    out.push_back(v);
  }
  return out;
}

void CfgSection::ignore(std::initializer_list<const char*> keys) {
  for (const char* k : keys) find(k);
}

void CfgSection::finish() const {
  for (const Entry& e : entries_)
    STRATA_CHECK(e.used, "darknet cfg line ", e.line, ": unknown key ", quoted(e.key), " in [", name_, "]");
}

std::vector<CfgSection> split_sections(std::string_view text) {
  STRATA_CHECK(text.size() <= kMaxCfgBytes, "darknet cfg: ", text.size(), " bytes, more than the limit of ",
               kMaxCfgBytes);
  std::vector<CfgSection> sections;
  int line_number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++line_number;
    // darknet's strip(): every whitespace character goes, wherever it is.
    std::string line;
    for (char c : text.substr(start, end - start))
      if (!std::isspace(static_cast<unsigned char>(c))) line += c;
    start = end + 1;
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      STRATA_CHECK(line.back() == ']' && line.size() > 2, "darknet cfg line ", line_number,
                   ": expected a section name like [convolutional], got ", quoted(line));
      STRATA_CHECK(sections.size() < kMaxCfgSections, "darknet cfg line ", line_number, ": more than ",
                   kMaxCfgSections, " sections");
      sections.emplace_back(line.substr(1, line.size() - 2), line_number);
      continue;
    }
    const size_t eq = line.find('=');
    STRATA_CHECK(eq != std::string::npos && eq > 0, "darknet cfg line ", line_number,
                 ": expected key=value or [section], got ", quoted(line));
    STRATA_CHECK(!sections.empty(), "darknet cfg line ", line_number, ": key ", quoted(line.substr(0, eq)),
                 " before the first section");
    sections.back().add(line.substr(0, eq), line.substr(eq + 1), line_number);
  }
  return sections;
}

}  // namespace strata::vision::detail
