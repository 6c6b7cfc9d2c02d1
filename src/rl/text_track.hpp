// A one-line picture of a value on [lo, hi] for the environments' render(): `|....o.....|`.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace strata::rl::detail {

inline std::string text_track(double value, double lo, double hi, char marker, int width = 41) {
  std::string line(width, '.');
  const double t = std::clamp((value - lo) / (hi - lo), 0.0, 1.0);
  line[static_cast<size_t>(std::lround(t * (width - 1)))] = marker;
  return "|" + line + "|";
}

// printf into a std::string, for the numbers beside the track.
template <class... Args>
std::string format(const char* fmt, Args... args) {
  char buf[160];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

}  // namespace strata::rl::detail
