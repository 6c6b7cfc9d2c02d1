#include "points/shape_mesh.hpp"

#include <algorithm>

#include "strata/core/error.hpp"

namespace strata::points::detail {
namespace {

constexpr int kSegments = 24;  // per turn of a curved primitive
constexpr double kTurn = 2 * std::numbers::pi;

// A grid of (rows + 1) x (cols + 1) points of a parametric surface as quads.
template <class Surface>
void add_grid(TriangleSoup& soup, int rows, int cols, int64_t part, Surface at) {
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) soup.add_quad(at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1), part);
}

}  // namespace

void TriangleSoup::add_triangle(Vec3 a, Vec3 b, Vec3 c, int64_t part) {
  triangles_.push_back({a, b, c});
  parts_.push_back(part);
}

void TriangleSoup::add_quad(Vec3 a, Vec3 b, Vec3 c, Vec3 d, int64_t part) {
  add_triangle(a, b, c, part);
  add_triangle(a, c, d, part);
}

void TriangleSoup::add_box(const Placement& at, Vec3 half, int64_t part) {
  auto corner = [&](int sx, int sy, int sz) {
    return at.origin + at.rotation * Vec3{sx * half.x, sy * half.y, sz * half.z};
  };
  for (int s : {-1, 1}) {
    add_quad(corner(s, -1, -1), corner(s, 1, -1), corner(s, 1, 1), corner(s, -1, 1), part);
    add_quad(corner(-1, s, -1), corner(1, s, -1), corner(1, s, 1), corner(-1, s, 1), part);
    add_quad(corner(-1, -1, s), corner(1, -1, s), corner(1, 1, s), corner(-1, 1, s), part);
  }
}

void TriangleSoup::add_frustum(const Placement& at, double r_bottom, double r_top, double height, int64_t part,
                               bool bottom_cap, bool top_cap) {
  auto rim = [&](double r, double y, int j) {
    const double a = kTurn * j / kSegments;
    return at.origin + at.rotation * Vec3{r * std::cos(a), y, r * std::sin(a)};
  };
  add_grid(*this, 1, kSegments, part, [&](int i, int j) { return i == 0 ? rim(r_bottom, 0, j) : rim(r_top, height, j); });
  const Vec3 bottom = at.origin, top = at.origin + at.rotation * Vec3{0, height, 0};
  for (int j = 0; j < kSegments; ++j) {
    if (bottom_cap && r_bottom > 0) add_triangle(bottom, rim(r_bottom, 0, j), rim(r_bottom, 0, j + 1), part);
    if (top_cap && r_top > 0) add_triangle(top, rim(r_top, height, j), rim(r_top, height, j + 1), part);
  }
}

void TriangleSoup::add_ellipsoid(const Placement& at, Vec3 radii, int64_t part, double lat_low, double lat_high) {
  const int rows = std::max(1, static_cast<int>(std::ceil((lat_high - lat_low) / kTurn * kSegments)));
  add_grid(*this, rows, kSegments, part, [&](int i, int j) {
    const double lat = lat_low + (lat_high - lat_low) * i / rows, lon = kTurn * j / kSegments;
    return at.origin + at.rotation * Vec3{radii.x * std::cos(lat) * std::cos(lon), radii.y * std::sin(lat),
                                          radii.z * std::cos(lat) * std::sin(lon)};
  });
}

void TriangleSoup::add_torus(const Placement& at, double ring, double tube, int64_t part, double arc_low,
                             double arc_high) {
  const int cols = std::max(1, static_cast<int>(std::ceil((arc_high - arc_low) / kTurn * kSegments)));
  add_grid(*this, kSegments / 2, cols, part, [&](int i, int j) {
    const double v = kTurn * i / (kSegments / 2), u = arc_low + (arc_high - arc_low) * j / cols;
    const double r = ring + tube * std::cos(v);
    return at.origin + at.rotation * Vec3{r * std::cos(u), r * std::sin(u), tube * std::sin(v)};
  });
}

void TriangleSoup::stretch(Vec3 s) {
  for (auto& t : triangles_)
    for (Vec3& v : t) v = {v.x * s.x, v.y * s.y, v.z * s.z};
}

void TriangleSoup::finish() {
  cumulative_area_.clear();
  double total = 0;
  for (const auto& t : triangles_) {
    total += 0.5 * norm(cross(t[1] - t[0], t[2] - t[0]));
    cumulative_area_.push_back(total);
  }
  STRATA_CHECK(total > 0, "synthetic shapes: a shape has no surface");
}

TriangleSoup::Sample TriangleSoup::sample(std::mt19937_64& rng) const {
  std::uniform_real_distribution<double> unit(0, 1);
  const double at = unit(rng) * cumulative_area_.back();
  const size_t k = std::min(cumulative_area_.size() - 1, static_cast<size_t>(std::upper_bound(
                                                             cumulative_area_.begin(), cumulative_area_.end(), at) -
                                                         cumulative_area_.begin()));
  // Uniform in the triangle: the square root folds the unit square's draw onto it evenly.
  const double r1 = std::sqrt(unit(rng)), r2 = unit(rng);
  const auto& t = triangles_[k];
  return {(1 - r1) * t[0] + (r1 * (1 - r2)) * t[1] + (r1 * r2) * t[2], parts_[k]};
}

}  // namespace strata::points::detail
