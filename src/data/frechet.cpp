#include "strata/data/frechet.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "strata/core/error.hpp"
#include "symmetric_eigen.hpp"

namespace strata::data {
namespace {

struct Gaussian {
  std::vector<double> mean, cov;  // D, D x D row-major
};

Gaussian fit(const Tensor& x, const char* name) {
  STRATA_CHECK(x.defined() && is_floating(x.dtype()) && x.dim() == 2 && x.shape()[0] >= 2, "frechet_distance: ", name,
               " must be float features [N, D] with N >= 2, got ",
               x.defined() ? x.shape().str() : std::string("an undefined tensor"));
  const int64_t n = x.shape()[0], d = x.shape()[1];
  const std::vector<double> v = x.contiguous().to_vector<double>();
  Gaussian g{std::vector<double>(d, 0), std::vector<double>(d * d, 0)};
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < d; ++j) g.mean[j] += v[i * d + j] / static_cast<double>(n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < d; ++j)
      for (int64_t k = 0; k < d; ++k)
        g.cov[j * d + k] += (v[i * d + j] - g.mean[j]) * (v[i * d + k] - g.mean[k]) / static_cast<double>(n - 1);
  return g;
}

// a x b for n x n row-major matrices.
std::vector<double> matmul(const std::vector<double>& a, const std::vector<double>& b, int64_t n) {
  std::vector<double> c(n * n, 0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < n; ++j) c[i * n + j] += a[i * n + k] * b[k * n + j];
  return c;
}

// The symmetric PSD square root V diag(sqrt(max(l, 0))) V^T (rounding can make l slightly < 0).
std::vector<double> sqrt_psd(const std::vector<double>& m, int64_t n) {
  const detail::SymmetricEigen e = detail::symmetric_eigen(m, n);
  std::vector<double> r(n * n, 0);
  for (int64_t k = 0; k < n; ++k) {
    const double s = std::sqrt(std::max(e.values[k], 0.0));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) r[i * n + j] += e.vectors[i * n + k] * s * e.vectors[j * n + k];
  }
  return r;
}

}  // namespace

double frechet_distance(const Tensor& a, const Tensor& b) {
  const Gaussian ga = fit(a, "a"), gb = fit(b, "b");
  const auto d = static_cast<int64_t>(ga.mean.size());
  STRATA_CHECK(static_cast<int64_t>(gb.mean.size()) == d, "frechet_distance: a has ", d, " features, b has ",
               gb.mean.size());
  double distance = 0;
  for (int64_t j = 0; j < d; ++j)
    distance += (ga.mean[j] - gb.mean[j]) * (ga.mean[j] - gb.mean[j]) + ga.cov[j * d + j] + gb.cov[j * d + j];
  // tr((S_a S_b)^(1/2)) = tr((R S_b R)^(1/2)) with R = S_a^(1/2): a symmetric PSD matrix's root.
  const std::vector<double> r = sqrt_psd(ga.cov, d);
  std::vector<double> m = matmul(matmul(r, gb.cov, d), r, d);
  for (int64_t i = 0; i < d; ++i)  // symmetric up to rounding: make it exactly so for the solver
    for (int64_t j = 0; j < i; ++j) m[i * d + j] = m[j * d + i] = (m[i * d + j] + m[j * d + i]) / 2;
  const detail::SymmetricEigen inner = detail::symmetric_eigen(m, d);
  for (double l : inner.values) distance -= 2 * std::sqrt(std::max(l, 0.0));
  return distance;
}

}  // namespace strata::data
