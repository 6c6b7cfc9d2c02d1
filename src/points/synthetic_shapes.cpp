#include "strata/points/synthetic_shapes.hpp"

#include <algorithm>
#include <string>

#include "points/shape_mesh.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/points/augment.hpp"

namespace strata::points {
namespace {

using detail::Placement;
using detail::TriangleSoup;
using detail::Vec3;
using Rng = std::mt19937_64;
constexpr double kPi = std::numbers::pi;

double uniform(Rng& rng, double low, double high) { return std::uniform_real_distribution<double>(low, high)(rng); }
bool coin(Rng& rng) { return std::bernoulli_distribution(0.5)(rng); }

// Four legs under a rectangle of half extents (hx, hz) at height `height`, inset by `inset`:
// square posts or round ones, a random choice per shape.
void add_legs(TriangleSoup& s, Rng& rng, double hx, double hz, double height, double inset, int64_t part) {
  const bool round = coin(rng);
  const double thick = uniform(rng, 0.03, 0.07);
  for (int sx : {-1, 1})
    for (int sz : {-1, 1}) {
      const Vec3 foot{sx * (hx - inset), 0, sz * (hz - inset)};
      if (round) s.add_frustum({foot}, thick, thick, height, part, false, false);
      else s.add_box({foot + Vec3{0, height / 2, 0}}, {thick, height / 2, thick}, part);
    }
}

// The builders: one shape of a class, at about unit size, y up, parts numbered from 0 in the
// order of their category's part names.

void ellipsoid(TriangleSoup& s, Rng& rng) {
  s.add_ellipsoid({}, {1, uniform(rng, 0.4, 1.6), uniform(rng, 0.4, 1.6)}, 0);
}

void box(TriangleSoup& s, Rng& rng) { s.add_box({}, {1, uniform(rng, 0.25, 1.5), uniform(rng, 0.25, 1.5)}, 0); }

void cylinder(TriangleSoup& s, Rng& rng) {
  const double r = uniform(rng, 0.25, 1);
  s.add_frustum({}, r, r, uniform(rng, 0.4, 2.5), 0);
}

void cone(TriangleSoup& s, Rng& rng) { s.add_frustum({}, uniform(rng, 0.4, 1), 0, uniform(rng, 0.6, 2.2), 0); }

void torus(TriangleSoup& s, Rng& rng) {
  // Lying flat, like a ring on a table: the local xy ring turned into the xz plane.
  s.add_torus({{}, axis_rotation(kPi / 2, 0)}, 1, uniform(rng, 0.15, 0.8), 0);
}

void pyramid(TriangleSoup& s, Rng& rng) {
  const double hx = uniform(rng, 0.5, 1), hz = uniform(rng, 0.5, 1), h = uniform(rng, 0.5, 2);
  const Vec3 apex{0, h, 0}, a{-hx, 0, -hz}, b{hx, 0, -hz}, c{hx, 0, hz}, d{-hx, 0, hz};
  s.add_quad(a, b, c, d, 0);
  s.add_triangle(a, b, apex, 0), s.add_triangle(b, c, apex, 0);
  s.add_triangle(c, d, apex, 0), s.add_triangle(d, a, apex, 0);
}

void capsule(TriangleSoup& s, Rng& rng) {
  const double r = uniform(rng, 0.25, 0.7), h = uniform(rng, 0.3, 2);
  s.add_frustum({}, r, r, h, 0, false, false);
  s.add_ellipsoid({{0, h, 0}}, {r, r, r}, 0, 0, kPi / 2);
  s.add_ellipsoid({}, {r, r, r}, 0, -kPi / 2, 0);
}

void chair(TriangleSoup& s, Rng& rng) {  // seat, back, legs
  const double hx = uniform(rng, 0.35, 0.6), hz = uniform(rng, 0.35, 0.6), seat = uniform(rng, 0.5, 1);
  const double thick = uniform(rng, 0.03, 0.08), back = uniform(rng, 0.5, 1.3);
  s.add_box({{0, seat, 0}}, {hx, thick, hz}, 0);
  s.add_box({{0, seat + back / 2, -hz + thick}}, {hx, back / 2, thick}, 1);
  add_legs(s, rng, hx, hz, seat - thick, 0.06, 2);
}

void table(TriangleSoup& s, Rng& rng) {  // top, legs
  const double height = uniform(rng, 0.5, 1.1), thick = uniform(rng, 0.03, 0.08);
  if (coin(rng)) {  // a round top on one central pedestal
    const double r = uniform(rng, 0.5, 1);
    s.add_frustum({{0, height - thick, 0}}, r, r, 2 * thick, 0);
    s.add_frustum({}, uniform(rng, 0.04, 0.1), uniform(rng, 0.04, 0.1), height - thick, 1, false, false);
    s.add_frustum({}, r * 0.5, r * 0.4, 0.05, 1, true, false);
  } else {
    const double hx = uniform(rng, 0.6, 1.2), hz = uniform(rng, 0.35, 0.8);
    s.add_box({{0, height, 0}}, {hx, thick, hz}, 0);
    add_legs(s, rng, hx, hz, height - thick, 0.08, 1);
  }
}

void lamp(TriangleSoup& s, Rng& rng) {  // base, pole, shade
  const double pole = uniform(rng, 0.8, 2), base = uniform(rng, 0.2, 0.5);
  s.add_frustum({}, base, base * uniform(rng, 0.6, 1), 0.08, 0);
  s.add_frustum({{0, 0.08, 0}}, 0.03, 0.03, pole, 1, false, false);
  const double bottom = uniform(rng, 0.25, 0.6), top = uniform(rng, 0.08, 0.3), h = uniform(rng, 0.25, 0.6);
  s.add_frustum({{0, 0.08 + pole - h * 0.7, 0}}, bottom, top, h, 2, false, false);
}

void mug(TriangleSoup& s, Rng& rng) {  // body, handle
  const double r = uniform(rng, 0.3, 0.6), h = uniform(rng, 0.6, 1.4);
  s.add_frustum({}, r, r, h, 0, true, false);
  // Half a torus in the xy plane, its ends on the body's side.
  const double ring = h * uniform(rng, 0.2, 0.35);
  s.add_torus({{r, h / 2, 0}}, ring, uniform(rng, 0.04, 0.08), 1, -kPi / 2, kPi / 2);
}

void airplane(TriangleSoup& s, Rng& rng) {  // fuselage, wings, tail
  const double length = uniform(rng, 1.2, 2.2), radius = uniform(rng, 0.1, 0.25);
  s.add_ellipsoid({}, {length / 2, radius, radius}, 0);
  const double span = uniform(rng, 1, 2.2), chord = uniform(rng, 0.2, 0.5), at = uniform(rng, -0.15, 0.15) * length;
  s.add_box({{at, 0, 0}, axis_rotation(uniform(rng, -0.1, 0.1), 1)}, {chord / 2, 0.025, span / 2}, 1);
  const double tail = -length * 0.42, fin = uniform(rng, 0.2, 0.45);
  s.add_box({{tail, 0, 0}}, {0.1, 0.02, span * uniform(rng, 0.15, 0.3)}, 2);
  s.add_box({{tail, radius / 2 + fin / 2, 0}}, {0.12, fin / 2, 0.02}, 2);
}

struct ShapeKind {
  const char* name;
  void (*build)(TriangleSoup&, Rng&);
};
constexpr ShapeKind kShapes[] = {{"ellipsoid", ellipsoid}, {"box", box},         {"cylinder", cylinder},
                                 {"cone", cone},           {"torus", torus},     {"pyramid", pyramid},
                                 {"capsule", capsule},     {"chair", chair},     {"table", table},
                                 {"lamp", lamp},           {"mug", mug},         {"airplane", airplane}};
constexpr int64_t kShapeCount = std::size(kShapes);
constexpr int64_t kChair = 7;  // the part categories are kShapes[kChair ...], in the same order

struct Cloud {
  Tensor points;
  std::vector<int64_t> parts;
};

// One cloud of `kind`: sampled in the posed frame, occluded, normalised, then noisy.
Cloud make_cloud(const ShapeKind& kind, Rng& rng, const SyntheticShapeOptions& o) {
  TriangleSoup soup;
  kind.build(soup, rng);
  // Stretched before sampling, so the points stay uniform over the stretched surface.
  const double most = std::log(o.max_stretch);
  soup.stretch({std::exp(uniform(rng, -most, most)), std::exp(uniform(rng, -most, most)),
                std::exp(uniform(rng, -most, most))});
  soup.finish();
  const Rotation turn = axis_rotation(uniform(rng, 0, 2 * kPi), 1);
  const Rotation tilt_x = axis_rotation(uniform(rng, -o.max_tilt, o.max_tilt), 0);
  const Rotation tilt_z = axis_rotation(uniform(rng, -o.max_tilt, o.max_tilt), 2);
  auto draw = [&] {
    TriangleSoup::Sample s = soup.sample(rng);
    s.point = tilt_z * (tilt_x * (turn * s.point));
    return s;
  };
  // Occlusion: a random direction d and a threshold keeping the visible fraction of a pilot
  // sample; the cloud is then drawn from the surface with p . d <= threshold, so it stays uniform
  // there. d stays 0 for a cloud that is not occluded.
  Vec3 d{0, 0, 0};
  double threshold = 0;
  if (std::bernoulli_distribution(o.occlusion)(rng)) {
    const Rotation r = random_rotation(rng);
    d = {r[0], r[3], r[6]};
    std::vector<double> pilot(512);
    for (double& p : pilot) p = dot(draw().point, d);
    std::sort(pilot.begin(), pilot.end());
    threshold = pilot[static_cast<size_t>(uniform(rng, o.min_visible, 1) * (pilot.size() - 1))];
  }
  std::vector<float> xyz;
  std::vector<int64_t> parts;
  for (int64_t tries = 0; static_cast<int64_t>(parts.size()) < o.points; ++tries) {
    STRATA_CHECK(tries < 100 * o.points, "synthetic shapes: the occlusion left too little of a ", kind.name);
    const TriangleSoup::Sample s = draw();
    if (norm(d) > 0 && dot(s.point, d) > threshold) continue;
    xyz.insert(xyz.end(), {static_cast<float>(s.point.x), static_cast<float>(s.point.y), static_cast<float>(s.point.z)});
    parts.push_back(s.part);
  }
  Tensor points = normalize_unit_sphere(from_vector(xyz, {o.points, 3}));
  if (o.noise > 0) points = jitter(points, rng, o.noise, 3 * o.noise);
  return {points, std::move(parts)};
}

void check_options(const SyntheticShapeOptions& o, int64_t size, const char* op) {
  STRATA_CHECK(size >= 0, op, ": expected size >= 0, got ", size);
  STRATA_CHECK(o.points >= 1, op, ": expected points >= 1, got ", o.points);
  STRATA_CHECK(o.occlusion >= 0 && o.occlusion <= 1, op, ": expected occlusion in [0, 1], got ", o.occlusion);
  STRATA_CHECK(o.min_visible > 0.05 && o.min_visible <= 1, op, ": expected min_visible in (0.05, 1], got ",
               o.min_visible);
  STRATA_CHECK(o.max_stretch >= 1, op, ": expected max_stretch >= 1, got ", o.max_stretch);
  STRATA_CHECK(o.noise >= 0 && o.max_tilt >= 0, op, ": expected noise >= 0 and max_tilt >= 0, got ", o.noise, " and ",
               o.max_tilt);
}

}  // namespace

const std::vector<std::string>& synthetic_shape_classes() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const ShapeKind& k : kShapes) n.emplace_back(k.name);
    return n;
  }();
  return names;
}

data::Dataset synthetic_shapes(int64_t size, uint64_t seed, const SyntheticShapeOptions& options) {
  check_options(options, size, "synthetic_shapes");
  return data::Dataset(size, [seed, options](int64_t i) {
    Rng rng = keyed_engine(seed, static_cast<uint64_t>(i));
    const int64_t label = i % kShapeCount;
    return data::Example{make_cloud(kShapes[label], rng, options).points, scalar_tensor(label, kInt64)};
  });
}

const std::vector<PartCategory>& synthetic_part_categories() {
  static const std::vector<PartCategory> categories{{"chair", {"seat", "back", "legs"}, 0},
                                                    {"table", {"top", "legs"}, 3},
                                                    {"lamp", {"base", "pole", "shade"}, 5},
                                                    {"mug", {"body", "handle"}, 8},
                                                    {"airplane", {"fuselage", "wings", "tail"}, 10}};
  return categories;
}

int64_t synthetic_part_count() {
  const PartCategory& last = synthetic_part_categories().back();
  return last.first_part + static_cast<int64_t>(last.parts.size());
}

data::Dataset synthetic_part_shapes(int64_t size, uint64_t seed, const SyntheticShapeOptions& options) {
  check_options(options, size, "synthetic_part_shapes");
  return data::Dataset(size, [seed, options](int64_t i) {
    Rng rng = keyed_engine(seed, static_cast<uint64_t>(i));
    const auto& categories = synthetic_part_categories();
    const int64_t label = i % static_cast<int64_t>(categories.size());
    Cloud cloud = make_cloud(kShapes[kChair + label], rng, options);
    for (int64_t& p : cloud.parts) p += categories[label].first_part;
    return data::Example{cloud.points, from_vector(cloud.parts), scalar_tensor(label, kInt64)};
  });
}

}  // namespace strata::points
