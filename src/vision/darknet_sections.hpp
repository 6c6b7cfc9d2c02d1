// A darknet .cfg as sections of key=value lines, each remembering its line, with typed,
// bounded getters. Every key a section holds must be read (or listed as ignored) before
// finish(), so an unknown key is an error naming its line rather than silently dropped.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace strata::vision::detail {

class CfgSection {
 public:
  CfgSection(std::string name, int line) : name_(std::move(name)), line_(line) {}
  const std::string& name() const { return name_; }
  int line() const { return line_; }
  void add(std::string key, std::string value, int line);  // a repeated key is an error

  // The value of `key`, or `fallback` when absent; outside [lo, hi] is an error naming the line.
  int64_t integer(const char* key, int64_t fallback, int64_t lo, int64_t hi);
  double real(const char* key, double fallback, double lo, double hi);
  std::string text(const char* key, const std::string& fallback, std::initializer_list<const char*> allowed);
  // Comma-separated lists; `present` says whether the key was there. At most max_items.
  std::vector<int64_t> integers(const char* key, int64_t lo, int64_t hi, size_t max_items, bool* present = nullptr);
  std::vector<double> reals(const char* key, double lo, double hi, size_t max_items);
  // Keys that are accepted and have no effect here (training settings).
  void ignore(std::initializer_list<const char*> keys);
  // Throws for the first key that nothing read.
  void finish() const;
  // "line 12 ([convolutional] at line 10)": where an error points.
  std::string where(const char* key = nullptr) const;

 private:
  struct Entry {
    std::string key, value;
    int line;
    bool used = false;
  };
  Entry* find(const char* key);
  std::string name_;
  int line_;
  std::vector<Entry> entries_;
};

// The sections of a cfg text, in order. Whitespace is removed from every line as darknet does;
// '#' and ';' start comment lines. At most kMaxCfgBytes of text and kMaxCfgSections sections.
std::vector<CfgSection> split_sections(std::string_view text);

constexpr size_t kMaxCfgBytes = size_t{4} << 20;
constexpr size_t kMaxCfgSections = 4096;

}  // namespace strata::vision::detail
