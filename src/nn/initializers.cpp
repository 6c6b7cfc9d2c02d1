#include "strata/nn/initializers.hpp"

#include <cmath>

#include "strata/ops/elementwise.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {

std::pair<double, double> fans(const Shape& shape) {
  if (shape.size() == 0) return {1, 1};
  if (shape.size() == 1) return {double(shape[0]), double(shape[0])};
  double receptive = 1;
  for (int d = 0; d + 2 < shape.size(); ++d) receptive *= double(shape[d]);
  return {shape[shape.size() - 2] * receptive, shape[shape.size() - 1] * receptive};
}

Initializer zeros_init() {
  return [](const Shape& s, Generator*) { return zeros(s); };
}
Initializer ones_init() {
  return [](const Shape& s, Generator*) { return ones(s); };
}
Initializer constant_init(double value) {
  return [value](const Shape& s, Generator*) { return full(s, value); };
}
Initializer random_uniform(double low, double high) {
  return [=](const Shape& s, Generator* g) { return uniform(s, low, high, kFloat32, g); };
}
Initializer random_normal(double mean, double stddev) {
  return [=](const Shape& s, Generator* g) { return normal(s, mean, stddev, kFloat32, g); };
}
Initializer truncated_normal(double mean, double stddev) {
  return [=](const Shape& s, Generator* g) {
    Tensor t = normal(s, mean, stddev, kFloat64, g);
    std::vector<double> v = t.to_vector<double>();
    std::normal_distribution<double> dist(mean, stddev);
    auto& eng = (g ? *g : default_generator()).engine();
    for (double& x : v)
      while (std::abs(x - mean) > 2 * stddev) x = dist(eng);
    return cast(from_vector(v, s), kFloat32);
  };
}
Initializer glorot_uniform() {
  return [](const Shape& s, Generator* g) {
    auto [in, out] = fans(s);
    double limit = std::sqrt(6.0 / (in + out));
    return uniform(s, -limit, limit, kFloat32, g);
  };
}
Initializer glorot_normal() {
  return [](const Shape& s, Generator* g) {
    auto [in, out] = fans(s);
    return normal(s, 0, std::sqrt(2.0 / (in + out)), kFloat32, g);
  };
}
Initializer he_uniform() {
  return [](const Shape& s, Generator* g) {
    double limit = std::sqrt(6.0 / fans(s).first);
    return uniform(s, -limit, limit, kFloat32, g);
  };
}
Initializer he_normal() {
  return [](const Shape& s, Generator* g) { return normal(s, 0, std::sqrt(2.0 / fans(s).first), kFloat32, g); };
}
Initializer orthogonal(double gain) {
  // Gram-Schmidt on a random normal matrix [rows, cols] with rows = prod of all but the last axis.
  return [gain](const Shape& s, Generator* g) {
    STRATA_CHECK(s.size() >= 2, "orthogonal: needs a weight of at least 2 dimensions, got ", s.str());
    int64_t cols = s.back(), rows = s.numel() / cols;
    bool transpose = rows < cols;  // orthonormalise the longer side's vectors
    int64_t n = transpose ? rows : cols, m = transpose ? cols : rows;
    std::vector<double> a = normal({n, m}, 0, 1, kFloat64, g).to_vector<double>();
    for (int64_t i = 0; i < n; ++i) {
      double* vi = &a[i * m];
      for (int64_t j = 0; j < i; ++j) {
        const double* vj = &a[j * m];
        double dot = 0;
        for (int64_t k = 0; k < m; ++k) dot += vi[k] * vj[k];
        for (int64_t k = 0; k < m; ++k) vi[k] -= dot * vj[k];
      }
      double norm = 0;
      for (int64_t k = 0; k < m; ++k) norm += vi[k] * vi[k];
      norm = std::sqrt(norm);
      for (int64_t k = 0; k < m; ++k) vi[k] /= norm;
    }
    Tensor q = from_vector(a, {n, m});  // rows orthonormal
    Tensor w = transpose ? q : contiguous(q.transpose(0, 1));
    return cast(reshape(w * gain, s), kFloat32);
  };
}

}  // namespace strata::nn
