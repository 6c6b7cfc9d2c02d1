// The pictures strata_style_transfer learns from, drawn here so that nothing is downloaded:
// content scenes (a two-colour gradient behind 2 to 4 filled circles, rectangles and rings) and
// style textures of six families (stripes, dots, waves, noise, checks, rings), each family drawn
// at a random scale and angle and coloured from a random three-colour palette. Every picture is
// a function of (seed, index) alone: the same seed draws the same pictures on any machine (a
// bit-exact 64-bit generator, no std:: distributions, whose values differ between libraries).
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <strata/strata.hpp>

namespace style_images {

inline const std::vector<std::string> kTextureFamilies = {"stripes", "dots", "waves", "noise", "checks", "rings"};

// Uniform numbers from mt19937_64 (whose sequence the C++ standard fixes).
class Draw {
 public:
  Draw(uint64_t seed, int64_t index) : engine_(seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(index)) {}
  double uniform(double low = 0, double high = 1) {
    return low + (high - low) * static_cast<double>(engine_() >> 11) * 0x1.0p-53;
  }
  int64_t below(int64_t n) { return std::min<int64_t>(n - 1, static_cast<int64_t>(uniform() * static_cast<double>(n))); }
  std::array<float, 3> colour() {
    return {static_cast<float>(uniform()), static_cast<float>(uniform()), static_cast<float>(uniform())};
  }

 private:
  std::mt19937_64 engine_;
};

// An RGB picture in [0, 1] being drawn, [side, side, 3] row-major.
struct Canvas {
  explicit Canvas(int64_t side) : side(side), pixels(static_cast<size_t>(side * side * 3)) {}
  void set(int64_t y, int64_t x, const std::array<float, 3>& c) {
    std::copy(c.begin(), c.end(), pixels.begin() + (y * side + x) * 3);
  }
  strata::Tensor tensor() const { return strata::from_vector(pixels, {side, side, 3}); }
  int64_t side;
  std::vector<float> pixels;
};

inline std::array<float, 3> mix(const std::array<float, 3>& a, const std::array<float, 3>& b, double t) {
  const auto f = static_cast<float>(std::clamp(t, 0.0, 1.0));
  return {a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1]), a[2] + f * (b[2] - a[2])};
}

// Content scene `index` of `seed`: [side, side, 3] float32 in [0, 1].
inline strata::Tensor content_scene(uint64_t seed, int64_t index, int64_t side) {
  Draw d(seed, 2 * index);
  Canvas c(side);
  const auto top = d.colour(), bottom = d.colour();
  const double angle = d.uniform(0, 2 * std::numbers::pi);
  for (int64_t y = 0; y < side; ++y)
    for (int64_t x = 0; x < side; ++x) {
      const double u = ((x - side / 2.0) * std::cos(angle) + (y - side / 2.0) * std::sin(angle)) / side + 0.5;
      c.set(y, x, mix(top, bottom, u));
    }
  const int64_t shapes = 2 + d.below(3);
  for (int64_t s = 0; s < shapes; ++s) {
    const int64_t kind = d.below(3);  // 0 circle, 1 rectangle, 2 ring
    const auto colour = d.colour();
    const double cx = d.uniform(0.15, 0.85) * side, cy = d.uniform(0.15, 0.85) * side;
    const double r = d.uniform(0.08, 0.25) * side, rh = d.uniform(0.08, 0.25) * side;
    for (int64_t y = 0; y < side; ++y)
      for (int64_t x = 0; x < side; ++x) {
        const double dx = x + 0.5 - cx, dy = y + 0.5 - cy, dist = std::hypot(dx, dy);
        const bool inside = kind == 0   ? dist < r
                            : kind == 1 ? std::abs(dx) < r && std::abs(dy) < rh
                                        : dist < r && dist > 0.6 * r;
        if (inside) c.set(y, x, colour);
      }
  }
  return c.tensor();
}

// The texture value in [0, 1] of `family` at (u, v), coordinates in cells of the pattern.
inline double texture_value(int64_t family, double u, double v, double phase, const std::vector<double>& noise,
                            int64_t grid) {
  const double pi = std::numbers::pi;
  switch (family) {
    case 0: return 0.5 + 0.5 * std::sin(2 * pi * u + phase);                                   // stripes
    case 1: return std::hypot(u - std::floor(u) - 0.5, v - std::floor(v) - 0.5) < 0.3 ? 1 : 0;  // dots
    case 2: return 0.5 + 0.5 * std::sin(2 * pi * u + 1.5 * std::sin(2 * pi * v * 0.5 + phase));  // waves
    case 3: {  // value noise: a random grid, bilinearly interpolated
      const double gu = std::fmod(std::abs(u), static_cast<double>(grid - 1)), gv = std::fmod(std::abs(v), static_cast<double>(grid - 1));
      const auto i = static_cast<int64_t>(gu), j = static_cast<int64_t>(gv);
      const double fu = gu - i, fv = gv - j;
      auto at = [&](int64_t a, int64_t b) { return noise[static_cast<size_t>(b * grid + a)]; };
      return (1 - fv) * ((1 - fu) * at(i, j) + fu * at(i + 1, j)) + fv * ((1 - fu) * at(i, j + 1) + fu * at(i + 1, j + 1));
    }
    case 4: return (static_cast<int64_t>(std::floor(u)) + static_cast<int64_t>(std::floor(v))) % 2 == 0 ? 1 : 0;  // checks
    default: return 0.5 + 0.5 * std::cos(2 * pi * std::hypot(u, v) + phase);  // rings
  }
}

struct Texture {
  strata::Tensor image;  // [side, side, 3] float32 in [0, 1]
  int64_t family;        // index into kTextureFamilies
};

// Style texture `index` of `seed`: a family (index % 6, so every six are one of each), a cell
// size of 1/12 to 1/3 of the side, an angle, and a palette of three colours over the value.
inline Texture style_texture(uint64_t seed, int64_t index, int64_t side) {
  Draw d(seed, 2 * index + 1);
  const int64_t family = index % static_cast<int64_t>(kTextureFamilies.size());
  const double cell = side * d.uniform(1.0 / 12, 1.0 / 3), angle = d.uniform(0, std::numbers::pi), phase = d.uniform(0, 6.3);
  const std::array<std::array<float, 3>, 3> palette = {d.colour(), d.colour(), d.colour()};
  const int64_t grid = side / 4 + 2;
  std::vector<double> noise(static_cast<size_t>(grid * grid));
  for (double& n : noise) n = d.uniform();
  Canvas c(side);
  for (int64_t y = 0; y < side; ++y)
    for (int64_t x = 0; x < side; ++x) {
      const double px = x - side / 2.0, py = y - side / 2.0;
      const double u = (px * std::cos(angle) + py * std::sin(angle)) / cell, v = (py * std::cos(angle) - px * std::sin(angle)) / cell;
      const double t = texture_value(family, u, v, phase, noise, grid);
      c.set(y, x, t < 0.5 ? mix(palette[0], palette[1], 2 * t) : mix(palette[1], palette[2], 2 * t - 1));
    }
  return {c.tensor(), family};
}

// `count` pictures from index `first` as one batch [count, side, side, 3].
inline strata::Tensor content_batch(uint64_t seed, int64_t first, int64_t count, int64_t side) {
  std::vector<strata::Tensor> images;
  for (int64_t i = first; i < first + count; ++i) images.push_back(content_scene(seed, i, side));
  return strata::stack(images, 0);
}
inline strata::Tensor style_batch(uint64_t seed, int64_t first, int64_t count, int64_t side) {
  std::vector<strata::Tensor> images;
  for (int64_t i = first; i < first + count; ++i) images.push_back(style_texture(seed, i, side).image);
  return strata::stack(images, 0);
}

}  // namespace style_images
