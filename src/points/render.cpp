#include "strata/points/render.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/combine.hpp"
#include "strata/points/augment.hpp"
#include "strata/viz/visualize.hpp"

namespace strata::points {
namespace {

constexpr int64_t kFrameColor = 7;  // tab10's grey, away from the label colours in a picture

// Viridis at five stops; values in between are interpolated.
std::array<double, 3> colormap(double t) {
  static const double stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  const double at = std::clamp(t, 0.0, 1.0) * 4;
  const int i = std::min(3, static_cast<int>(at));
  const double f = at - i;
  return {stops[i][0] + f * (stops[i + 1][0] - stops[i][0]), stops[i][1] + f * (stops[i + 1][1] - stops[i][1]),
          stops[i][2] + f * (stops[i + 1][2] - stops[i][2])};
}

// The colour of each of p points (before depth shading).
std::vector<std::array<double, 3>> point_colors(const Tensor& color_by, int64_t p) {
  std::vector<std::array<double, 3>> colors(static_cast<size_t>(p));
  auto palette = [](int64_t k) {
    const std::vector<uint8_t> c = viz::curve_color(static_cast<size_t>(k));
    return std::array<double, 3>{double(c[0]), double(c[1]), double(c[2])};
  };
  if (!color_by.defined()) {
    std::fill(colors.begin(), colors.end(), palette(0));
    return colors;
  }
  STRATA_CHECK(color_by.dim() == 1 && color_by.size(0) == p, "render_cloud: expected color_by [", p,
               "] (one label or value per point), got ", color_by.shape().str());
  if (!is_floating(color_by.dtype())) {
    const std::vector<int64_t> labels = color_by.to_vector<int64_t>();
    for (int64_t i = 0; i < p; ++i) {
      STRATA_CHECK(labels[i] >= 0, "render_cloud: label ", labels[i], " of point ", i, " is negative");
      colors[i] = palette(labels[i]);
    }
    return colors;
  }
  const std::vector<double> v = color_by.to_vector<double>();
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  for (int64_t i = 0; i < p; ++i) colors[i] = colormap(*hi > *lo ? (v[i] - *lo) / (*hi - *lo) : 0.5);
  return colors;
}

}  // namespace

Tensor render_cloud(const Tensor& cloud, const Tensor& color_by, const RenderOptions& o) {
  STRATA_CHECK(cloud.defined() && is_floating(cloud.dtype()) && cloud.dim() == 2 && cloud.size(1) >= 3,
               "render_cloud: expected a float cloud [P, 3 + F], got ",
               cloud.defined() ? dtype_name(cloud.dtype()) + std::string(" ") + cloud.shape().str()
                               : std::string("an undefined tensor"));
  STRATA_CHECK(o.width >= 1 && o.height >= 1 && o.width * o.height <= (int64_t{1} << 26),
               "render_cloud: expected 1 to 2^26 pixels, got ", o.width, " x ", o.height);
  STRATA_CHECK(o.point_radius > 0 && o.point_radius <= 64 && o.depth_shading >= 0 && o.depth_shading <= 1,
               "render_cloud: expected point_radius in (0, 64] and depth_shading in [0, 1], got ", o.point_radius,
               " and ", o.depth_shading);
  const int64_t p = cloud.size(0), cols = cloud.size(1);
  const std::vector<std::array<double, 3>> colors = point_colors(color_by, p);
  const std::vector<double> v = cloud.to_vector<double>();
  std::vector<uint8_t> pixels(static_cast<size_t>(o.width * o.height * 3));
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = o.background[i % 3];
  if (p == 0) return from_vector(pixels, {o.height, o.width, 3});

  // The camera frame: turned by -azimuth about y, then by elevation about x, so the camera
  // looks along -z with y up on the screen; centred on the bounding box's centre.
  const double deg = std::numbers::pi / 180;
  const Rotation turn = axis_rotation(-o.azimuth * deg, 1), rise = axis_rotation(o.elevation * deg, 0);
  double lo[3], hi[3];
  for (int k = 0; k < 3; ++k) lo[k] = hi[k] = v[k];
  for (int64_t i = 0; i < p; ++i)
    for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], v[i * cols + k]), hi[k] = std::max(hi[k], v[i * cols + k]);
  std::vector<std::array<double, 3>> cam(static_cast<size_t>(p));
  double radius = 0, near = -std::numeric_limits<double>::infinity(), far = std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < p; ++i) {
    double q[3], t[3];
    for (int k = 0; k < 3; ++k) q[k] = v[i * cols + k] - (lo[k] + hi[k]) / 2;
    for (int r = 0; r < 3; ++r) t[r] = turn[r * 3] * q[0] + turn[r * 3 + 1] * q[1] + turn[r * 3 + 2] * q[2];
    for (int r = 0; r < 3; ++r) cam[i][r] = rise[r * 3] * t[0] + rise[r * 3 + 1] * t[1] + rise[r * 3 + 2] * t[2];
    radius = std::max(radius, std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]));
    near = std::max(near, cam[i][2]), far = std::min(far, cam[i][2]);
  }
  if (!(radius > 0)) radius = 1;
  const double scale = 0.95 * std::min(o.width, o.height) / 2 / radius, distance = 3 * radius;
  std::vector<double> depth(static_cast<size_t>(o.width * o.height), -std::numeric_limits<double>::infinity());
  const auto reach = static_cast<int64_t>(std::ceil(o.point_radius));
  for (int64_t i = 0; i < p; ++i) {
    const auto [x, y, z] = cam[i];
    // A pinhole at `distance` keeps the scale of the plane through the centre (z = 0).
    const double f = o.perspective ? distance / (distance - z) : 1.0;
    const double px = (o.width - 1) / 2.0 + x * f * scale, py = (o.height - 1) / 2.0 - y * f * scale;
    const double shade = 1 - o.depth_shading * (near > far ? (near - z) / (near - far) : 0);
    const int64_t cx = std::llround(px), cy = std::llround(py);
    for (int64_t row = std::max<int64_t>(0, cy - reach); row <= std::min(o.height - 1, cy + reach); ++row)
      for (int64_t col = std::max<int64_t>(0, cx - reach); col <= std::min(o.width - 1, cx + reach); ++col) {
        const double dx = static_cast<double>(col) - px, dy = static_cast<double>(row) - py;
        const size_t at = static_cast<size_t>(row * o.width + col);
        if (dx * dx + dy * dy > o.point_radius * o.point_radius || z <= depth[at]) continue;
        depth[at] = z;
        for (int c = 0; c < 3; ++c) pixels[at * 3 + c] = static_cast<uint8_t>(std::lround(colors[i][c] * shade));
      }
  }
  return from_vector(pixels, {o.height, o.width, 3});
}

Tensor render_grid(const std::vector<Tensor>& clouds, const std::vector<Tensor>& color_by,
                   const std::vector<std::string>& captions, int64_t cols, const RenderOptions& o) {
  const auto n = static_cast<int64_t>(clouds.size());
  STRATA_CHECK(n >= 1, "render_grid: expected at least one cloud");
  STRATA_CHECK(color_by.empty() || color_by.size() == clouds.size(), "render_grid: ", color_by.size(),
               " color_by tensors for ", n, " clouds");
  STRATA_CHECK(captions.empty() || captions.size() == clouds.size(), "render_grid: ", captions.size(),
               " captions for ", n, " clouds");
  STRATA_CHECK(cols >= 0, "render_grid: expected cols >= 0, got ", cols);
  if (cols == 0) cols = static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  cols = std::min(cols, n);
  const int64_t rows = (n + cols - 1) / cols;
  std::vector<Tensor> pictures;
  for (int64_t i = 0; i < n; ++i) pictures.push_back(render_cloud(clouds[i], color_by.empty() ? Tensor() : color_by[i], o));
  while (static_cast<int64_t>(pictures.size()) < rows * cols) pictures.push_back(render_cloud(zeros({0, 3}), {}, o));
  Tensor grid = viz::image_grid(stack(pictures), rows, cols);
  // Frames drawn as boxes below a tab's height, so each caption's tab sits inside its cell's top.
  const double tab = captions.empty() ? 0 : 14;
  std::vector<float> boxes;
  for (int64_t i = 0; i < n; ++i) {
    const double x0 = static_cast<double>(i % cols * o.width), y0 = static_cast<double>(i / cols * o.height);
    boxes.insert(boxes.end(), {static_cast<float>(x0), static_cast<float>(y0 + tab), static_cast<float>(x0 + o.width - 1),
                               static_cast<float>(y0 + o.height - 1)});
  }
  return viz::draw_boxes(grid, from_vector(boxes, {n, 4}), std::vector<int64_t>(static_cast<size_t>(n), kFrameColor), 1,
                         false, captions);
}

}  // namespace strata::points
