#include "strata/core/limits.hpp"

#include <cerrno>
#include <cstdlib>
#include <string>

namespace strata {
namespace {

std::string env_name(std::string_view limit_name) {
  std::string name = "STRATA_";
  for (char c : limit_name) name += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return name;
}

// Reads an environment override; a malformed value is an error rather than silently ignored.
void read_env(std::string_view limit_name, std::uint64_t& field) {
  const std::string name = env_name(limit_name);
  const char* text = std::getenv(name.c_str());
  if (text == nullptr || *text == '\0') return;
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text, &end, 10);
  STRATA_CHECK(errno == 0 && *end == '\0' && text[0] != '-', name, "='", text,
               "' is not a non-negative integer");
  field = value;
}

Limits read_limits() {
  Limits l;
  read_env("max_tensor_bytes", l.max_tensor_bytes);
  read_env("max_image_pixels", l.max_image_pixels);
  read_env("max_json_depth", l.max_json_depth);
  read_env("max_pickle_depth", l.max_pickle_depth);
  read_env("max_plan_tasks", l.max_plan_tasks);
  return l;
}

}  // namespace

Limits& limits() {
  static Limits instance = read_limits();
  return instance;
}

void check_limit(std::string_view what, std::string_view quantity, std::uint64_t value,
                 std::string_view limit_name, std::uint64_t limit) {
  if (value <= limit) return;
  throw LimitError(detail::concat(std::string(what), ": ", std::string(quantity), " ",
                                  std::to_string(value), " exceeds the limit ",
                                  std::string(limit_name), " = ", std::to_string(limit), " (set ",
                                  env_name(limit_name), " to raise it)"));
}

void check_json_depth(std::string_view json_text, std::string_view what) {
  const std::uint64_t max_depth = limits().max_json_depth;
  std::uint64_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < json_text.size(); ++i) {
    const char c = json_text[i];
    if (in_string) {
      if (c == '\\') ++i;  // skip the escaped character, which may be a quote
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      check_limit(what, "JSON nesting depth", ++depth, "max_json_depth", max_depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

}  // namespace strata
