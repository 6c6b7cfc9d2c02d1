// Image grids and line plots drawn into uint8 HWC buffers on the host, then encoded as PNG.
#include "strata/viz/visualize.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/data/image_codec.hpp"
#include "bitmap_font.hpp"
#include "data/image_tiles.hpp"

namespace strata::viz {
namespace {

// Pixel values of `images` as uint8, mapped by TensorLayer's rule (see image_grid).
std::vector<uint8_t> to_pixels(const Tensor& images) {
  if (images.dtype() == kUInt8) return images.contiguous().to_vector<uint8_t>();
  STRATA_CHECK(is_floating(images.dtype()), "image_grid: expected uint8 or float images, got ",
               dtype_name(images.dtype()));
  std::vector<double> v = images.contiguous().to_vector<double>();
  double lo = 0, hi = 0;
  if (!v.empty()) {
    lo = *std::min_element(v.begin(), v.end());
    hi = *std::max_element(v.begin(), v.end());
  }
  STRATA_CHECK(std::isfinite(lo) && std::isfinite(hi) && lo >= -1 && hi <= 1,
               "image_grid: float images must lie in [0, 1] or [-1, 1], got values in [", lo, ", ", hi, "]");
  const bool symmetric = lo < 0;
  std::vector<uint8_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    out[i] = static_cast<uint8_t>(std::lround(symmetric ? (v[i] + 1) * 127.5 : v[i] * 255));
  return out;
}

struct Canvas {
  int64_t h, w;
  std::vector<uint8_t> rgb;
  Canvas(int64_t height, int64_t width) : h(height), w(width), rgb(height * width * 3, 255) {}
  void set(int64_t y, int64_t x, const std::vector<uint8_t>& c) {
    if (y < 0 || y >= h || x < 0 || x >= w) return;
    std::copy(c.begin(), c.end(), rgb.begin() + (y * w + x) * 3);
  }
  // A 2-pixel-thick segment: unit steps along the longer axis, rounding the other.
  void line(double y0, double x0, double y1, double x1, const std::vector<uint8_t>& c) {
    const int64_t steps = std::max<int64_t>(1, std::llround(std::max(std::abs(y1 - y0), std::abs(x1 - x0))));
    for (int64_t s = 0; s <= steps; ++s) {
      const double t = static_cast<double>(s) / static_cast<double>(steps);
      const int64_t y = std::llround(y0 + t * (y1 - y0)), x = std::llround(x0 + t * (x1 - x0));
      for (int64_t dy = 0; dy < 2; ++dy)
        for (int64_t dx = 0; dx < 2; ++dx) set(y + dy, x + dx, c);
    }
  }
};

// In the top margin: the series' names in their colours on the left, the y range on the
// right; in the bottom margin, right: the x range (points 1..n).
void draw_legend(Canvas& canvas, const std::map<std::string, std::vector<double>>& series, double lowest,
                 double highest, size_t longest, int64_t margin) {
  const uint8_t black[3] = {0, 0, 0};
  const int64_t top = (margin - detail::kGlyphHeight) / 2, bottom = canvas.h - margin + top;
  int64_t x = margin;
  size_t index = 0;
  for (const auto& [name, values] : series) {
    const std::vector<uint8_t> color = curve_color(index++);
    detail::draw_text(canvas.rgb, canvas.h, canvas.w, 3, x, top, name, color.data());
    x += detail::text_width(name) + 2 * detail::kGlyphWidth;
  }
  char range[64];
  std::snprintf(range, sizeof range, "y %.4g .. %.4g", lowest, highest);
  detail::draw_text(canvas.rgb, canvas.h, canvas.w, 3, canvas.w - margin - detail::text_width(range), top, range, black);
  std::snprintf(range, sizeof range, "x 1 .. %zu", longest);
  detail::draw_text(canvas.rgb, canvas.h, canvas.w, 3, canvas.w - margin - detail::text_width(range), bottom, range, black);
}

}  // namespace

Tensor image_grid(const Tensor& images, int64_t rows, int64_t cols, int64_t padding) {
  STRATA_CHECK(images.defined(), "image_grid: images is an undefined tensor");
  STRATA_CHECK(images.dim() == 3 || images.dim() == 4, "image_grid: expected images [N, H, W, C] or [N, H, W], got ",
               images.shape().str());
  const Shape& s = images.shape();
  const int64_t n = s[0], h = s[1], w = s[2], c = images.dim() == 4 ? s[3] : 1;
  STRATA_CHECK(n >= 1 && h >= 1 && w >= 1, "image_grid: no image to draw in ", s.str());
  STRATA_CHECK(c == 1 || c == 3, "image_grid: expected 1 or 3 channels, got ", c);
  STRATA_CHECK(rows >= 0 && cols >= 0 && padding >= 0, "image_grid: rows, cols and padding must be >= 0, got ",
               rows, ", ", cols, ", ", padding);
  return data::detail::tile_images(to_pixels(images), {n, h, w, c}, rows, cols, padding);
}

void save_images(const Tensor& images, const std::string& path, int64_t rows, int64_t cols, int64_t padding) {
  data::write_image(path, image_grid(images, rows, cols, padding));
}

std::vector<uint8_t> curve_color(size_t i) {
  static const uint8_t tab10[10][3] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44},  {214, 39, 40},
                                       {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127},
                                       {188, 189, 34},  {23, 190, 207}};
  const uint8_t* c = tab10[i % 10];
  return {c[0], c[1], c[2]};
}

Tensor plot_curves(const std::map<std::string, std::vector<double>>& series, const PlotOptions& o) {
  STRATA_CHECK(!series.empty(), "plot_curves: no series to plot");
  STRATA_CHECK(o.margin >= 0 && o.width - 2 * o.margin >= 8 && o.height - 2 * o.margin >= 8 && o.width <= 16384 &&
                   o.height <= 16384,
               "plot_curves: a ", o.width, " x ", o.height, " image with margin ", o.margin,
               " leaves no room to plot (need 8 pixels inside the margins, at most 16384 a side)");
  size_t longest = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& [name, values] : series) {
    longest = std::max(longest, values.size());
    for (double v : values)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  STRATA_CHECK(std::isfinite(lo), "plot_curves: no finite value in any series");
  const double lowest = lo, highest = hi;
  const double room = hi > lo ? 0.05 * (hi - lo) : 1.0;  // a flat series sits mid-height
  lo -= room, hi += room;
  const double left = static_cast<double>(o.margin), right = static_cast<double>(o.width - 1 - o.margin);
  const double top = static_cast<double>(o.margin), bottom = static_cast<double>(o.height - 1 - o.margin);
  auto x_of = [&](size_t i) { return longest < 2 ? (left + right) / 2 : left + (right - left) * i / (longest - 1); };
  auto y_of = [&](double v) { return bottom - (bottom - top) * (v - lo) / (hi - lo); };

  Canvas canvas(o.height, o.width);
  const std::vector<uint8_t> grey = {220, 220, 220}, black = {0, 0, 0};
  for (int g = 1; g <= 3; ++g) {
    const int64_t y = std::llround(top + (bottom - top) * g / 4);
    for (int64_t x = o.margin; x < o.width - o.margin; ++x) canvas.set(y, x, grey);
  }
  for (int64_t x = o.margin - 1; x <= o.width - o.margin; ++x)
    canvas.set(o.margin - 1, x, black), canvas.set(o.height - o.margin, x, black);
  for (int64_t y = o.margin - 1; y <= o.height - o.margin; ++y)
    canvas.set(y, o.margin - 1, black), canvas.set(y, o.width - o.margin, black);
  size_t index = 0;
  for (const auto& [name, values] : series) {
    const std::vector<uint8_t> color = curve_color(index++);
    for (size_t i = 0; i < values.size(); ++i) {
      if (!std::isfinite(values[i])) continue;
      const bool joined = i > 0 && std::isfinite(values[i - 1]);
      const size_t from = joined ? i - 1 : i;
      canvas.line(y_of(values[from]), x_of(from), y_of(values[i]), x_of(i), color);
    }
  }
  if (o.margin >= detail::kGlyphHeight + 2) draw_legend(canvas, series, lowest, highest, longest, o.margin);
  return from_vector(canvas.rgb, {o.height, o.width, 3});
}

void save_curves(const std::map<std::string, std::vector<double>>& series, const std::string& path,
                 const PlotOptions& options) {
  data::write_image(path, plot_curves(series, options));
}

Tensor draw_boxes(const Tensor& image, const Tensor& boxes, const std::vector<int64_t>& classes, int64_t thickness,
                  bool normalized, const std::vector<std::string>& labels) {
  const char* op = "draw_boxes";
  STRATA_CHECK(image.defined() && image.dtype() == kUInt8 && image.dim() == 3 &&
                   (image.shape()[2] == 1 || image.shape()[2] == 3),
               op, ": expected a uint8 image [H, W, 1 or 3], got ",
               image.defined() ? dtype_name(image.dtype()) + std::string(" ") + image.shape().str() : "an undefined tensor");
  STRATA_CHECK(boxes.defined() && is_floating(boxes.dtype()) && boxes.dim() == 2 && boxes.shape()[1] == 4, op,
               ": expected float boxes [K, 4] (x_min, y_min, x_max, y_max), got ",
               boxes.defined() ? boxes.shape().str() : std::string("an undefined tensor"));
  const int64_t k = boxes.shape()[0], h = image.shape()[0], w = image.shape()[1], c = image.shape()[2];
  STRATA_CHECK(classes.empty() || static_cast<int64_t>(classes.size()) == k, op, ": ", classes.size(),
               " classes for ", k, " boxes");
  STRATA_CHECK(thickness >= 1, op, ": thickness must be >= 1, got ", thickness);
  STRATA_CHECK(labels.empty() || static_cast<int64_t>(labels.size()) == k, op, ": ", labels.size(), " labels for ", k,
               " boxes");
  std::vector<uint8_t> px = image.contiguous().to_vector<uint8_t>();
  const std::vector<double> b = boxes.contiguous().to_vector<double>();
  for (int64_t i = 0; i < k; ++i) {
    double x0 = b[i * 4], y0 = b[i * 4 + 1], x1 = b[i * 4 + 2], y1 = b[i * 4 + 3];
    STRATA_CHECK(std::isfinite(x0) && std::isfinite(y0) && std::isfinite(x1) && std::isfinite(y1) && x0 <= x1 &&
                     y0 <= y1,
                 op, ": box ", i, " (", x0, ", ", y0, ", ", x1, ", ", y1,
                 ") is not finite with x_min <= x_max and y_min <= y_max");
    if (normalized) x0 *= w - 1, x1 *= w - 1, y0 *= h - 1, y1 *= h - 1;
    const int64_t cls = classes.empty() ? i : classes[i];
    STRATA_CHECK(cls >= 0, op, ": class ", cls, " of box ", i, " is negative");
    const std::vector<uint8_t> rgb = curve_color(static_cast<size_t>(cls));
    const auto luma = static_cast<uint8_t>(std::lround(0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]));
    const int64_t left = std::llround(x0), right = std::llround(x1), top = std::llround(y0), bottom = std::llround(y1);
    for (int64_t y = std::max<int64_t>(top, 0); y <= std::min(bottom, h - 1); ++y)
      for (int64_t x = std::max<int64_t>(left, 0); x <= std::min(right, w - 1); ++x) {
        const bool edge = y < top + thickness || y > bottom - thickness || x < left + thickness || x > right - thickness;
        if (!edge) continue;
        uint8_t* p = px.data() + (y * w + x) * c;
        if (c == 1) p[0] = luma;
        else std::copy(rgb.begin(), rgb.end(), p);
      }
    if (!labels.empty() && !labels[i].empty()) {
      // On a tab of the box's colour above its top-left corner (inside, when no room above),
      // in white, or black on a light colour.
      const uint8_t* fill = c == 1 ? &luma : rgb.data();
      const uint8_t ink = luma > 160 ? 0 : 255, ink3[3] = {ink, ink, ink};
      const int64_t y = top >= detail::kGlyphHeight ? top - detail::kGlyphHeight : top;
      detail::fill_rect(px, h, w, c, y, left, y + detail::kGlyphHeight - 1, left + detail::text_width(labels[i]) + 1, fill);
      detail::draw_text(px, h, w, c, left + 1, y, labels[i], ink3);
    }
  }
  return from_vector(px, image.shape());
}

}  // namespace strata::viz
