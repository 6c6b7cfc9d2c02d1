#include "strata/vision/synthetic_detection.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <random>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::vision {
namespace {

using Rng = std::mt19937_64;
using Color = std::array<double, 3>;

double uniform(Rng& rng, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }

Color random_color(Rng& rng) { return {uniform(rng, 0.05, 0.95), uniform(rng, 0.05, 0.95), uniform(rng, 0.05, 0.95)}; }

// Whether the point (x, y), relative to the shape's centre and in units of its half sizes, is
// inside a shape of class `label`.
bool inside(int64_t label, double x, double y) {
  switch (label) {
    case 0: return x * x + y * y <= 1;                                      // circle (an ellipse)
    case 1: return std::abs(x) <= 1 && std::abs(y) <= 1;                    // square (a rectangle)
    case 2: return y >= -1 && y <= 1 && std::abs(x) <= (y + 1) / 2;         // triangle, apex up
    case 3: return (std::abs(x) <= 0.3 && std::abs(y) <= 1) || (std::abs(y) <= 0.3 && std::abs(x) <= 1);  // cross
    default: return x * x + y * y <= 1 && x * x + y * y >= 0.36;            // ring
  }
}

struct Canvas {
  int64_t size;
  std::vector<float> pixels;  // [S, S, 3]
  void blend(int64_t r, int64_t c, const Color& color, double alpha = 1) {
    float* p = pixels.data() + (r * size + c) * 3;
    for (int k = 0; k < 3; ++k) p[k] = static_cast<float>(p[k] * (1 - alpha) + color[k] * alpha);
  }
};

// Two-colour gradient under a faint sinusoidal weave, then distractors that are none of the
// classes: thin lines, dots and small soft blobs.
void draw_background(Canvas& canvas, const SyntheticDetectionOptions& o, Rng& rng) {
  const Color a = random_color(rng), b = random_color(rng);
  const double angle = uniform(rng, 0, 2 * std::numbers::pi), fx = uniform(rng, 0.1, 0.5), fy = uniform(rng, 0.1, 0.5);
  const double s = static_cast<double>(canvas.size);
  for (int64_t r = 0; r < canvas.size; ++r)
    for (int64_t c = 0; c < canvas.size; ++c) {
      const double t = 0.5 + 0.5 * ((c / s - 0.5) * std::cos(angle) + (r / s - 0.5) * std::sin(angle));
      const double weave = 0.06 * std::sin(fx * c) * std::sin(fy * r);
      Color mix;
      for (int k = 0; k < 3; ++k) mix[k] = std::clamp(a[k] * (1 - t) + b[k] * t + weave, 0.0, 1.0);
      canvas.blend(r, c, mix);
    }
  for (int64_t k = 0; k < o.clutter; ++k) {
    const Color color = random_color(rng);
    const double x0 = uniform(rng, 0, s), y0 = uniform(rng, 0, s);
    switch (rng() % 3) {
      case 0: {  // a line 1 pixel wide
        const double len = uniform(rng, 0.1, 0.4) * s, dir = uniform(rng, 0, 2 * std::numbers::pi);
        for (double t = 0; t < len; t += 0.5) {
          const auto c = static_cast<int64_t>(x0 + t * std::cos(dir)), r = static_cast<int64_t>(y0 + t * std::sin(dir));
          if (r >= 0 && r < canvas.size && c >= 0 && c < canvas.size) canvas.blend(r, c, color, 0.8);
        }
        break;
      }
      default: {  // a dot or a soft blob, at most ~4% of the image wide
        const double radius = uniform(rng, 1, 0.04 * s + 1), soft = rng() % 2 ? 0.5 : 1.0;
        for (int64_t r = std::max<int64_t>(0, static_cast<int64_t>(y0 - radius)); r < std::min<int64_t>(canvas.size, static_cast<int64_t>(y0 + radius) + 1); ++r)
          for (int64_t c = std::max<int64_t>(0, static_cast<int64_t>(x0 - radius)); c < std::min<int64_t>(canvas.size, static_cast<int64_t>(x0 + radius) + 1); ++c) {
            const double d = std::hypot(c + 0.5 - x0, r + 0.5 - y0) / radius;
            if (d <= 1) canvas.blend(r, c, color, soft * (1 - d * d));
          }
      }
    }
  }
}

struct Placed {
  int64_t label;
  double cx, cy, hx, hy;  // centre and half sizes in pixels
};

// The object's pixels: filled with its colour in one of four textures (solid, stripes,
// checks, a shaded gradient); returns the tight box of the pixels drawn.
Box draw_object(Canvas& canvas, const Placed& p, Rng& rng) {
  const Color color = random_color(rng);
  Color second;
  const double shift = uniform(rng, 0.25, 0.45) * (rng() % 2 ? 1 : -1);
  for (int k = 0; k < 3; ++k) second[k] = std::clamp(color[k] + shift, 0.0, 1.0);
  const int texture = static_cast<int>(rng() % 4);
  const double period = uniform(rng, 3, 7), tilt = uniform(rng, -1, 1);
  Box box{1e9, 1e9, -1e9, -1e9};
  const int64_t r0 = std::max<int64_t>(0, static_cast<int64_t>(p.cy - p.hy) - 1), r1 = std::min<int64_t>(canvas.size, static_cast<int64_t>(p.cy + p.hy) + 2);
  const int64_t c0 = std::max<int64_t>(0, static_cast<int64_t>(p.cx - p.hx) - 1), c1 = std::min<int64_t>(canvas.size, static_cast<int64_t>(p.cx + p.hx) + 2);
  for (int64_t r = r0; r < r1; ++r)
    for (int64_t c = c0; c < c1; ++c) {
      const double x = (c + 0.5 - p.cx) / p.hx, y = (r + 0.5 - p.cy) / p.hy;
      if (!inside(p.label, x, y)) continue;
      bool alt = false;
      double shade = 0;
      if (texture == 1) alt = static_cast<int64_t>(std::floor((c + tilt * r) / period)) % 2 != 0;
      if (texture == 2) alt = (static_cast<int64_t>(std::floor(c / period)) + static_cast<int64_t>(std::floor(r / period))) % 2 != 0;
      if (texture == 3) shade = 0.5 * (x + y) / 2;
      Color fill = alt ? second : color;
      for (int k = 0; k < 3; ++k) fill[k] = std::clamp(fill[k] + shade * shift, 0.0, 1.0);
      canvas.blend(r, c, fill);
      box = {std::min(box.x1, double(c)), std::min(box.y1, double(r)), std::max(box.x2, double(c + 1)), std::max(box.y2, double(r + 1))};
    }
  return box;
}

// The area of a's box that b's covers, as a fraction of a's.
double covered(const Placed& a, const Placed& b) {
  const double w = std::min(a.cx + a.hx, b.cx + b.hx) - std::max(a.cx - a.hx, b.cx - b.hx);
  const double h = std::min(a.cy + a.hy, b.cy + b.hy) - std::max(a.cy - a.hy, b.cy - b.hy);
  return w <= 0 || h <= 0 ? 0 : w * h / (4 * a.hx * a.hy);
}

void check_options(const SyntheticDetectionOptions& o) {
  STRATA_CHECK(o.image_size >= 16 && o.image_size <= 4096 && o.min_objects >= 0 && o.max_objects >= std::max<int64_t>(1, o.min_objects) &&
                   o.max_objects <= 64 && o.min_size > 0 && o.min_size <= o.max_size && o.max_size <= 0.9 &&
                   o.max_occlusion >= 0 && o.max_occlusion <= 1 && o.clutter >= 0 && o.clutter <= 1000 && o.noise >= 0 && o.noise <= 1,
               "synthetic_detection: expected image_size in [16, 4096], 0 <= min_objects <= max_objects in [1, 64], "
               "0 < min_size <= max_size <= 0.9, max_occlusion in [0, 1], clutter in [0, 1000] and noise in [0, 1]");
}

}  // namespace

const std::vector<std::string>& synthetic_detection_classes() {
  static const std::vector<std::string> names{"circle", "square", "triangle", "cross", "ring"};
  return names;
}

data::Dataset synthetic_detection(int64_t size, uint64_t seed, const SyntheticDetectionOptions& options) {
  check_options(options);
  STRATA_CHECK(size >= 0, "synthetic_detection: size is ", size, "; expected >= 0");
  return data::Dataset(size, [seed, o = options](int64_t index) {
    std::seed_seq keys{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), static_cast<uint32_t>(index),
                       static_cast<uint32_t>(static_cast<uint64_t>(index) >> 32)};
    Rng rng(keys);
    const int64_t s = o.image_size;
    Canvas canvas{s, std::vector<float>(static_cast<size_t>(s * s * 3), 0.0f)};
    draw_background(canvas, o, rng);
    const int64_t count = o.min_objects + static_cast<int64_t>(rng() % static_cast<uint64_t>(o.max_objects - o.min_objects + 1));
    std::vector<Placed> placed;
    std::vector<float> boxes(static_cast<size_t>(o.max_objects * 4), 0.0f);
    std::vector<int64_t> labels(static_cast<size_t>(o.max_objects), -1);
    for (int64_t k = 0; k < count; ++k)
      for (int attempt = 0; attempt < 20; ++attempt) {
        const double side = uniform(rng, o.min_size, o.max_size) * static_cast<double>(s), aspect = std::exp(uniform(rng, -0.35, 0.35));
        const double hx = side / 2 * std::min(1.0, aspect), hy = side / 2 * std::min(1.0, 1 / aspect);
        const Placed p{static_cast<int64_t>(rng() % 5), uniform(rng, hx + 1, static_cast<double>(s) - hx - 1),
                       uniform(rng, hy + 1, static_cast<double>(s) - hy - 1), hx, hy};
        if (std::any_of(placed.begin(), placed.end(), [&](const Placed& q) { return covered(q, p) > o.max_occlusion || covered(p, q) > 0.9; }))
          continue;
        const Box b = draw_object(canvas, p, rng);
        const size_t at = placed.size();
        placed.push_back(p);
        boxes[4 * at] = static_cast<float>(b.x1), boxes[4 * at + 1] = static_cast<float>(b.y1);
        boxes[4 * at + 2] = static_cast<float>(b.x2), boxes[4 * at + 3] = static_cast<float>(b.y2);
        labels[at] = p.label;
        break;
      }
    std::normal_distribution<double> noise(0, o.noise);
    for (float& v : canvas.pixels) v = static_cast<float>(std::clamp(v + (o.noise > 0 ? noise(rng) : 0.0), 0.0, 1.0));
    return data::Example{from_vector(canvas.pixels, {s, s, 3}), from_vector(boxes, {o.max_objects, 4}),
                         from_vector(labels, {o.max_objects})};
  });
}

std::vector<LabeledBox> labeled_boxes(const Tensor& boxes, const Tensor& labels) {
  STRATA_CHECK(boxes.defined() && labels.defined() && boxes.dim() == 2 && boxes.size(1) == 4 && labels.dim() == 1 &&
                   labels.size(0) == boxes.size(0),
               "labeled_boxes: expected boxes [M, 4] and labels [M], got ", boxes.defined() ? boxes.shape().str() : "undefined",
               " and ", labels.defined() ? labels.shape().str() : "undefined");
  const std::vector<double> b = cast(boxes, kFloat64).contiguous().to_vector<double>();
  const std::vector<int64_t> l = cast(labels, kInt64).contiguous().to_vector<int64_t>();
  std::vector<LabeledBox> out;
  for (size_t i = 0; i < l.size(); ++i)
    if (l[i] >= 0) out.push_back({{b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]}, l[i]});
  return out;
}

}  // namespace strata::vision
