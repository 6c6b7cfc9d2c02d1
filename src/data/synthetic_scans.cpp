#include "strata/data/synthetic_scans.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"

namespace strata::data {
namespace {

using Rng = std::mt19937_64;

double uniform(Rng& rng, double low, double high) { return std::uniform_real_distribution<double>(low, high)(rng); }

// A rotated ellipse whose radius wobbles with the angle (a few low harmonics), in the scan's
// coordinates u, v in [-1, 1].
struct Blob {
  double cx = 0, cy = 0, rx = 1, ry = 1, angle = 0;
  double wobble[3] = {0, 0, 0}, phase[3] = {0, 0, 0};

  // < 1 inside, 1 on the outline.
  double level(double u, double v) const {
    const double c = std::cos(angle), s = std::sin(angle);
    const double x = (c * (u - cx) + s * (v - cy)) / rx, y = (-s * (u - cx) + c * (v - cy)) / ry;
    const double theta = std::atan2(y, x);
    double r = 1;
    for (int k = 0; k < 3; ++k) r += wobble[k] * std::cos((k + 2) * theta + phase[k]);
    return std::sqrt(x * x + y * y) / r;
  }
};

Blob random_blob(Rng& rng, double cx, double cy, double rx, double ry, double max_wobble) {
  Blob b{.cx = cx, .cy = cy, .rx = rx, .ry = ry, .angle = uniform(rng, 0, std::numbers::pi)};
  for (int k = 0; k < 3; ++k) {
    b.wobble[k] = uniform(rng, -max_wobble, max_wobble);
    b.phase[k] = uniform(rng, 0, 2 * std::numbers::pi);
  }
  return b;
}

// A smooth texture in about [-1, 1]: three plane waves of random direction and frequency.
struct Texture {
  double fu[3], fv[3], phase[3];
  explicit Texture(Rng& rng) {
    for (int k = 0; k < 3; ++k) {
      const double angle = uniform(rng, 0, 2 * std::numbers::pi), freq = uniform(rng, 3, 9);
      fu[k] = freq * std::cos(angle);
      fv[k] = freq * std::sin(angle);
      phase[k] = uniform(rng, 0, 2 * std::numbers::pi);
    }
  }
  double at(double u, double v) const {
    double t = 0;
    for (int k = 0; k < 3; ++k) t += std::sin(fu[k] * u + fv[k] * v + phase[k]);
    return t / 3;
  }
};

// The [1, 2, 1] / 4 blur along rows then columns, edges repeated.
void blur(std::vector<float>& img, int64_t s) {
  std::vector<float> tmp(img.size());
  for (int pass = 0; pass < 2; ++pass) {
    const int64_t step = pass == 0 ? 1 : s;
    for (int64_t y = 0; y < s; ++y)
      for (int64_t x = 0; x < s; ++x) {
        const int64_t i = y * s + x, at = pass == 0 ? x : y;
        const float prev = img[at > 0 ? i - step : i], next = img[at < s - 1 ? i + step : i];
        tmp[i] = 0.25f * prev + 0.5f * img[i] + 0.25f * next;
      }
    img.swap(tmp);
  }
}

Example make_scan(Rng& rng, const SyntheticScanOptions& o) {
  const int64_t s = o.size;
  const Blob body = random_blob(rng, uniform(rng, -0.08, 0.08), uniform(rng, -0.08, 0.08), uniform(rng, 0.72, 0.88),
                                uniform(rng, 0.6, 0.8), 0.05);
  const Blob organ = random_blob(rng, body.cx + uniform(rng, -0.3, 0.3) * body.rx,
                                 body.cy + uniform(rng, -0.25, 0.25) * body.ry, uniform(rng, 0.22, 0.36),
                                 uniform(rng, 0.16, 0.28), 0.06);
  // The small organs sit in the body away from the large one's centre (they may touch it).
  std::vector<Blob> small;
  const int count = std::uniform_int_distribution<int>(1, 2)(rng);
  for (int tries = 0; static_cast<int>(small.size()) < count && tries < 50; ++tries) {
    const double cx = body.cx + uniform(rng, -0.7, 0.7) * body.rx, cy = body.cy + uniform(rng, -0.7, 0.7) * body.ry;
    if (body.level(cx, cy) > 0.75 || organ.level(cx, cy) < 1.3) continue;
    const double r = uniform(rng, 0.08, 0.15);
    small.push_back(random_blob(rng, cx, cy, r, r * uniform(rng, 0.6, 1.0), 0.08));
  }
  const bool has_lesion = uniform(rng, 0, 1) < o.lesion_probability;
  const double la = uniform(rng, 0, 2 * std::numbers::pi), lr = uniform(rng, 0, 0.6);
  const double lesion_r = uniform(rng, 0.07, 0.12);
  const Blob lesion = random_blob(rng, organ.cx + lr * organ.rx * std::cos(la), organ.cy + lr * organ.ry * std::sin(la),
                                  lesion_r, lesion_r * uniform(rng, 0.7, 1.0), 0.1);
  const Texture tissue(rng), organ_texture(rng);
  const double gain = uniform(rng, 0.85, 1.15), gx = uniform(rng, -o.drift, o.drift), gy = uniform(rng, -o.drift, o.drift);

  std::vector<float> img(s * s);
  std::vector<int64_t> mask(s * s, 0);
  for (int64_t y = 0; y < s; ++y)
    for (int64_t x = 0; x < s; ++x) {
      const double u = (2.0 * x + 1) / s - 1, v = (2.0 * y + 1) / s - 1;
      double value = 0.04;  // air
      int64_t cls = 0;
      if (body.level(u, v) < 1) value = 0.42 + 0.07 * tissue.at(u, v);
      for (const Blob& b : small)
        if (const double level = b.level(u, v); level < 1) {
          // Kidney-like: a brighter rim (the cortex) round a centre at the tissue's mean, both
          // grainy; only texture and shape tell them from the tissue.
          value = (level > 0.7 ? 0.56 : 0.40) + uniform(rng, -0.3, 0.3);
          cls = 2;
        }
      if (organ.level(u, v) < 1) {
        value = 0.72 + 0.04 * organ_texture.at(u, v);
        cls = 1;
        if (has_lesion && lesion.level(u, v) < 1) {
          value = 0.45;
          cls = 3;
        }
      }
      img[y * s + x] = static_cast<float>(value);
      mask[y * s + x] = cls;
    }
  blur(img, s);
  std::normal_distribution<double> noise(0, o.noise);
  for (int64_t y = 0; y < s; ++y)
    for (int64_t x = 0; x < s; ++x) {
      const double u = (2.0 * x + 1) / s - 1, v = (2.0 * y + 1) / s - 1;
      const double drifted = img[y * s + x] * gain * (1 + gx * u + gy * v) + (o.noise > 0 ? noise(rng) : 0);
      img[y * s + x] = static_cast<float>(std::clamp(drifted, 0.0, 1.0));
    }
  return {from_vector(img, Shape{s, s, 1}), from_vector(mask, Shape{s, s})};
}

}  // namespace

const std::vector<std::string>& synthetic_scan_classes() {
  static const std::vector<std::string> names{"background", "organ", "small organ", "lesion"};
  return names;
}

Dataset synthetic_scans(int64_t size, uint64_t seed, const SyntheticScanOptions& options) {
  const char* op = "synthetic_scans";
  STRATA_CHECK(size >= 0, op, ": expected a size >= 0, got ", size);
  STRATA_CHECK(options.size >= 16 && options.size <= 1024, op, ": expected scans of 16 to 1024 pixels, got ",
               options.size);
  STRATA_CHECK(options.noise >= 0 && options.noise <= 1, op, ": expected noise in [0, 1], got ", options.noise);
  STRATA_CHECK(options.drift >= 0 && options.drift < 1, op, ": expected drift in [0, 1), got ", options.drift);
  STRATA_CHECK(options.lesion_probability >= 0 && options.lesion_probability <= 1, op,
               ": expected lesion_probability in [0, 1], got ", options.lesion_probability);
  return Dataset(size, [seed, options](int64_t i) {
    // One independent stream per (seed, index): examples read in any order, on any thread.
    std::seed_seq key{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), static_cast<uint32_t>(i),
                      static_cast<uint32_t>(static_cast<uint64_t>(i) >> 32)};
    Rng rng(key);
    return make_scan(rng, options);
  });
}

}  // namespace strata::data
