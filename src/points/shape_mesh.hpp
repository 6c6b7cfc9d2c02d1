// Triangle soups with a part id per triangle, built from parametric primitives (boxes, frusta,
// ellipsoids, tori), and uniform sampling of their surfaces: what the synthetic shape data sets
// are made of. Curved primitives are tessellated finely enough (24 segments a turn) that 1024
// points sampled from them show no facets.
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <vector>

#include "strata/points/augment.hpp"

namespace strata::points::detail {

struct Vec3 {
  double x = 0, y = 0, z = 0;
};
inline Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline Vec3 operator*(double s, Vec3 a) { return {s * a.x, s * a.y, s * a.z}; }
inline Vec3 cross(Vec3 a, Vec3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
inline double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline double norm(Vec3 a) { return std::sqrt(dot(a, a)); }
inline Vec3 operator*(const Rotation& r, Vec3 a) {
  return {r[0] * a.x + r[1] * a.y + r[2] * a.z, r[3] * a.x + r[4] * a.y + r[5] * a.z,
          r[6] * a.x + r[7] * a.y + r[8] * a.z};
}
inline const Rotation kIdentity{1, 0, 0, 0, 1, 0, 0, 0, 1};

// Where a primitive goes: its local frame turned by `rotation`, then moved to `origin`.
struct Placement {
  Vec3 origin;
  Rotation rotation = kIdentity;
};

class TriangleSoup {
 public:
  void add_triangle(Vec3 a, Vec3 b, Vec3 c, int64_t part);
  // The quad a b c d (in order around it) as two triangles.
  void add_quad(Vec3 a, Vec3 b, Vec3 c, Vec3 d, int64_t part);

  // A box of half extents `half` centred on the placement's origin.
  void add_box(const Placement& at, Vec3 half, int64_t part);
  // A frustum along the local +y axis from the origin: radius r_bottom at y = 0, r_top at y =
  // height (r_top = 0: a cone; equal radii: a cylinder); caps close the ends with disks.
  void add_frustum(const Placement& at, double r_bottom, double r_top, double height, int64_t part,
                   bool bottom_cap = true, bool top_cap = true);
  // An ellipsoid with semi-axes `radii`, between latitudes lat_low and lat_high (radians from
  // the local xz plane towards +y): a hemisphere is [0, pi/2].
  void add_ellipsoid(const Placement& at, Vec3 radii, int64_t part, double lat_low = -std::numbers::pi / 2,
                     double lat_high = std::numbers::pi / 2);
  // A torus in the local xy plane around the origin (ring radius `ring`, tube radius `tube`),
  // from angle arc_low to arc_high about +z (a mug's handle is half of one).
  void add_torus(const Placement& at, double ring, double tube, int64_t part, double arc_low = 0,
                 double arc_high = 2 * std::numbers::pi);

  // Every vertex's coordinates multiplied by s's (an anisotropic stretch of the whole shape).
  void stretch(Vec3 s);

  // A point uniform over the surface (area-weighted over the triangles) and its part.
  struct Sample {
    Vec3 point;
    int64_t part;
  };
  // Call after the last add; draws use the cumulative areas computed here.
  void finish();
  Sample sample(std::mt19937_64& rng) const;
  bool empty() const { return triangles_.empty(); }

 private:
  std::vector<std::array<Vec3, 3>> triangles_;
  std::vector<int64_t> parts_;
  std::vector<double> cumulative_area_;
};

}  // namespace strata::points::detail
