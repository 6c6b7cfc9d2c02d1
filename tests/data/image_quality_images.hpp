// The images of make_image_quality_fixture.py (see its docstring), for the image quality tests
// (tests/data) and resize_bicubic's (tests/vision), which compare against the same fixture.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "strata/core/factory.hpp"

namespace strata::data::fixture {

// The fixture's images (see the script's docstring), 16 x 20 x 3 uint8.
inline Tensor image_a() {
  std::vector<uint8_t> v;
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 20; ++x)
      for (int c = 0; c < 3; ++c) v.push_back(static_cast<uint8_t>((37 * x + 91 * y + 53 * c + 7 * x * y) % 256));
  return from_vector(v, {16, 20, 3});
}
inline Tensor image_b() {
  std::vector<uint8_t> v;
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 20; ++x)
      for (int c = 0; c < 3; ++c) {
        const int a = (37 * x + 91 * y + 53 * c + 7 * x * y) % 256;
        v.push_back(static_cast<uint8_t>(std::clamp(a + (5 * x + 3 * y + 11 * c) % 41 - 20, 0, 255)));
      }
  return from_vector(v, {16, 20, 3});
}

inline Tensor expected(const std::vector<double>& v, int64_t h, int64_t w, int64_t c = 3) {
  return from_vector(v, {h, w, c});
}

}  // namespace strata::data::fixture
