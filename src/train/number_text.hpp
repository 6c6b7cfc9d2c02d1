// Numbers in files the train module writes (CSV, HTML): the shortest text that reads back as
// the same double, "nan" / "inf" / "-inf" for the others.
#pragma once
#include <charconv>
#include <cmath>
#include <string>

namespace strata::train::detail {

inline std::string number_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  return std::string(buf, end);
}

}  // namespace strata::train::detail
