#include "strata/points/augment.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <string>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/data/dataset.hpp"
#include "strata/ops/indexing.hpp"

namespace strata::points {
namespace {

// A cloud's values on the host, row-major [p, cols].
struct Cloud {
  std::vector<float> v;
  int64_t p = 0, cols = 0;
  float* row(int64_t i) { return v.data() + i * cols; }
  Tensor tensor() const { return from_vector(v, {p, cols}); }
};

Cloud read_cloud(const Tensor& cloud, const char* op, bool normals) {
  const int64_t need = normals ? 6 : 3;
  STRATA_CHECK(cloud.defined() && cloud.dtype() == kFloat32 && cloud.dim() == 2 && cloud.size(1) >= need, op,
               ": expected a float32 cloud [P, ", std::to_string(need), " + F]", normals ? " with normals" : "",
               ", got ", cloud.defined() ? dtype_name(cloud.dtype()) + std::string(" ") + cloud.shape().str()
                                         : std::string("an undefined tensor"));
  return Cloud{cloud.to_vector<float>(), cloud.size(0), cloud.size(1)};
}

// Applies m (row-major 3 x 3) to the three values at p.
void transform(const std::array<double, 9>& m, float* p) {
  const double x = p[0], y = p[1], z = p[2];
  for (int r = 0; r < 3; ++r) p[r] = static_cast<float>(m[r * 3] * x + m[r * 3 + 1] * y + m[r * 3 + 2] * z);
}

void normalize3(float* n) {
  const double len = std::sqrt(double(n[0]) * n[0] + double(n[1]) * n[1] + double(n[2]) * n[2]);
  if (len > 0)
    for (int k = 0; k < 3; ++k) n[k] = static_cast<float>(n[k] / len);
}

PointRows take_rows(const Tensor& cloud, std::vector<int64_t> rows) {
  return {index_select(cloud, 0, from_vector(rows)), std::move(rows)};
}

}  // namespace

std::mt19937_64 keyed_engine(uint64_t seed, uint64_t key) {
  std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), static_cast<uint32_t>(key),
                    static_cast<uint32_t>(key >> 32)};
  return std::mt19937_64(seq);
}

Rotation axis_rotation(double angle, int axis) {
  STRATA_CHECK(axis >= 0 && axis <= 2, "axis_rotation: expected axis 0 (x), 1 (y) or 2 (z), got ", axis);
  const double c = std::cos(angle), s = std::sin(angle);
  switch (axis) {
    case 0: return {1, 0, 0, 0, c, -s, 0, s, c};
    case 1: return {c, 0, s, 0, 1, 0, -s, 0, c};
    default: return {c, -s, 0, s, c, 0, 0, 0, 1};
  }
}

Rotation random_rotation(std::mt19937_64& rng) {
  // Four independent normals point in a uniformly random direction of R^4, so their
  // normalisation is a uniform unit quaternion, whose rotation is uniform over SO(3).
  std::normal_distribution<double> normal;
  double w, x, y, z, len;
  do {
    w = normal(rng), x = normal(rng), y = normal(rng), z = normal(rng);
    len = std::sqrt(w * w + x * x + y * y + z * z);
  } while (len < 1e-12);
  w /= len, x /= len, y /= len, z /= len;
  return {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
          2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
          2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
}

Tensor rotate(const Tensor& cloud, const Rotation& r, bool normals) {
  Cloud c = read_cloud(cloud, "rotate", normals);
  for (int64_t i = 0; i < c.p; ++i) {
    transform(r, c.row(i));
    if (normals) transform(r, c.row(i) + 3);
  }
  return c.tensor();
}

Tensor random_rotate_about_axis(const Tensor& cloud, std::mt19937_64& rng, int axis, bool normals) {
  std::uniform_real_distribution<double> angle(0, 2 * std::numbers::pi);
  return rotate(cloud, axis_rotation(angle(rng), axis), normals);
}

Tensor random_rotate(const Tensor& cloud, std::mt19937_64& rng, bool normals) {
  return rotate(cloud, random_rotation(rng), normals);
}

Tensor random_scale(const Tensor& cloud, std::mt19937_64& rng, double low, double high, bool normals) {
  STRATA_CHECK(low > 0 && low <= high, "random_scale: expected 0 < low <= high, got [", low, ", ", high, "]");
  Cloud c = read_cloud(cloud, "random_scale", normals);
  std::uniform_real_distribution<double> factor(low, high);
  const double sx = factor(rng), sy = factor(rng), sz = factor(rng);
  const std::array<double, 9> s{sx, 0, 0, 0, sy, 0, 0, 0, sz}, inverse{1 / sx, 0, 0, 0, 1 / sy, 0, 0, 0, 1 / sz};
  for (int64_t i = 0; i < c.p; ++i) {
    transform(s, c.row(i));
    if (normals) transform(inverse, c.row(i) + 3), normalize3(c.row(i) + 3);
  }
  return c.tensor();
}

Tensor jitter(const Tensor& cloud, std::mt19937_64& rng, double sigma, double clip) {
  STRATA_CHECK(sigma >= 0 && clip > 0, "jitter: expected sigma >= 0 and clip > 0, got sigma ", sigma, ", clip ",
               clip);
  Cloud c = read_cloud(cloud, "jitter", false);
  std::normal_distribution<double> normal(0, sigma);
  for (int64_t i = 0; i < c.p; ++i)
    for (int k = 0; k < 3; ++k) c.row(i)[k] += static_cast<float>(std::clamp(normal(rng), -clip, clip));
  return c.tensor();
}

Tensor random_translate(const Tensor& cloud, std::mt19937_64& rng, double range) {
  STRATA_CHECK(range >= 0, "random_translate: expected range >= 0, got ", range);
  Cloud c = read_cloud(cloud, "random_translate", false);
  std::uniform_real_distribution<double> shift(-range, range);
  const double t[3] = {shift(rng), shift(rng), shift(rng)};
  for (int64_t i = 0; i < c.p; ++i)
    for (int k = 0; k < 3; ++k) c.row(i)[k] += static_cast<float>(t[k]);
  return c.tensor();
}

Tensor normalize_unit_sphere(const Tensor& cloud) {
  Cloud c = read_cloud(cloud, "normalize_unit_sphere", false);
  if (c.p == 0) return cloud;
  double centroid[3] = {0, 0, 0};
  for (int64_t i = 0; i < c.p; ++i)
    for (int k = 0; k < 3; ++k) centroid[k] += c.row(i)[k];
  for (double& m : centroid) m /= static_cast<double>(c.p);
  double max_norm = 0;
  for (int64_t i = 0; i < c.p; ++i) {
    double sq = 0;
    for (int k = 0; k < 3; ++k) sq += (c.row(i)[k] - centroid[k]) * (c.row(i)[k] - centroid[k]);
    max_norm = std::max(max_norm, std::sqrt(sq));
  }
  const double scale = max_norm > 0 ? 1 / max_norm : 1;
  for (int64_t i = 0; i < c.p; ++i)
    for (int k = 0; k < 3; ++k) c.row(i)[k] = static_cast<float>((c.row(i)[k] - centroid[k]) * scale);
  return c.tensor();
}

PointRows random_dropout(const Tensor& cloud, std::mt19937_64& rng, double max_ratio) {
  STRATA_CHECK(max_ratio >= 0 && max_ratio < 1, "random_dropout: expected max_ratio in [0, 1), got ", max_ratio);
  read_cloud(cloud, "random_dropout", false);
  std::uniform_real_distribution<double> unit(0, 1);
  const double ratio = unit(rng) * max_ratio;
  std::vector<int64_t> rows(static_cast<size_t>(cloud.size(0)));
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = unit(rng) < ratio ? 0 : static_cast<int64_t>(i);
  return take_rows(cloud, std::move(rows));
}

PointRows shuffle_points(const Tensor& cloud, std::mt19937_64& rng) {
  read_cloud(cloud, "shuffle_points", false);
  return take_rows(cloud, data::permutation(cloud.size(0), rng()));
}

Augmentation::Augmentation(uint64_t seed, bool normals)
    : seed_(seed), normals_(normals), calls_(std::make_shared<std::atomic<uint64_t>>(0)) {}

Augmentation& Augmentation::add(Step step) {
  steps_.push_back(std::move(step));
  return *this;
}

Augmentation& Augmentation::rotate_about_axis(int axis) {
  axis_rotation(0, axis);  // checks the axis now rather than at the first example
  return add([axis, normals = normals_](State& s, std::mt19937_64& rng) {
    s.cloud = random_rotate_about_axis(s.cloud, rng, axis, normals);
  });
}

Augmentation& Augmentation::rotate_so3() {
  return add([normals = normals_](State& s, std::mt19937_64& rng) { s.cloud = random_rotate(s.cloud, rng, normals); });
}

Augmentation& Augmentation::scale(double low, double high) {
  return add([=, normals = normals_](State& s, std::mt19937_64& rng) {
    s.cloud = random_scale(s.cloud, rng, low, high, normals);
  });
}

Augmentation& Augmentation::jitter(double sigma, double clip) {
  return add([=](State& s, std::mt19937_64& rng) { s.cloud = points::jitter(s.cloud, rng, sigma, clip); });
}

Augmentation& Augmentation::translate(double range) {
  return add([=](State& s, std::mt19937_64& rng) { s.cloud = random_translate(s.cloud, rng, range); });
}

Augmentation& Augmentation::normalize() {
  return add([](State& s, std::mt19937_64&) { s.cloud = normalize_unit_sphere(s.cloud); });
}

// Dropout and shuffling compose their row maps, so the labels are gathered once at the end.
Augmentation& Augmentation::dropout(double max_ratio) {
  return add([=](State& s, std::mt19937_64& rng) {
    PointRows r = random_dropout(s.cloud, rng, max_ratio);
    for (int64_t& row : r.rows) row = s.rows[row];
    s.cloud = r.cloud, s.rows = std::move(r.rows);
  });
}

Augmentation& Augmentation::shuffle() {
  return add([](State& s, std::mt19937_64& rng) {
    PointRows r = shuffle_points(s.cloud, rng);
    for (int64_t& row : r.rows) row = s.rows[row];
    s.cloud = r.cloud, s.rows = std::move(r.rows);
  });
}

data::Example Augmentation::apply(data::Example example, uint64_t key) const {
  STRATA_CHECK(!example.empty(), "Augmentation: expected an example {points, ...}, got an empty one");
  read_cloud(example[0], "Augmentation", normals_);
  std::mt19937_64 rng = keyed_engine(seed_, key);
  State state{example[0], std::vector<int64_t>(static_cast<size_t>(example[0].size(0)))};
  std::iota(state.rows.begin(), state.rows.end(), 0);
  for (const Step& step : steps_) step(state, rng);
  const int64_t p = example[0].size(0);
  bool moved = false;
  for (size_t i = 0; i < state.rows.size(); ++i) moved |= state.rows[i] != static_cast<int64_t>(i);
  example[0] = state.cloud;
  if (moved) {
    const Tensor rows = from_vector(state.rows);
    for (size_t t = 1; t < example.size(); ++t)
      if (example[t].dim() >= 1 && example[t].size(0) == p) example[t] = index_select(example[t], 0, rows);
  }
  return example;
}

data::Example Augmentation::operator()(data::Example example) const {
  return apply(std::move(example), calls_->fetch_add(1));
}

}  // namespace strata::points
