// Cyclic Jacobi: each rotation zeroes one off-diagonal pair; sweeps repeat until the off-diagonal
// part is negligible next to the diagonal. Rotation angles follow Golub & Van Loan (8.5.2), the
// stable form that picks the smaller of the two angles.
#include "symmetric_eigen.hpp"

#include <cmath>

#include "strata/core/error.hpp"

namespace strata::data::detail {

SymmetricEigen symmetric_eigen(std::vector<double> a, int64_t n) {
  STRATA_CHECK(n >= 0 && static_cast<int64_t>(a.size()) == n * n, "symmetric_eigen: expected ", n * n,
               " values for a ", n, "x", n, " matrix, got ", a.size());
  std::vector<double> v(a.size(), 0.0);
  for (int64_t i = 0; i < n; ++i) v[i * n + i] = 1;
  auto at = [n](std::vector<double>& m, int64_t r, int64_t c) -> double& { return m[r * n + c]; };
  double total = 0;
  for (double x : a) total += x * x;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) off += 2 * at(a, p, q) * at(a, p, q);
    if (off <= 1e-30 * total || off == 0) break;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        const double apq = at(a, p, q);
        if (apq == 0) continue;
        const double tau = (at(a, q, q) - at(a, p, p)) / (2 * apq);
        const double t = (tau >= 0 ? 1 : -1) / (std::abs(tau) + std::sqrt(1 + tau * tau));
        const double c = 1 / std::sqrt(1 + t * t), s = t * c;
        // A <- J^T A J with J the rotation in the (p, q) plane: columns, then rows.
        for (int64_t k = 0; k < n; ++k) {
          const double akp = at(a, k, p), akq = at(a, k, q);
          at(a, k, p) = c * akp - s * akq;
          at(a, k, q) = s * akp + c * akq;
        }
        for (int64_t k = 0; k < n; ++k) {
          const double apk = at(a, p, k), aqk = at(a, q, k);
          at(a, p, k) = c * apk - s * aqk;
          at(a, q, k) = s * apk + c * aqk;
        }
        for (int64_t k = 0; k < n; ++k) {
          const double vkp = at(v, k, p), vkq = at(v, k, q);
          at(v, k, p) = c * vkp - s * vkq;
          at(v, k, q) = s * vkp + c * vkq;
        }
      }
    }
  }
  SymmetricEigen out{std::vector<double>(n), std::move(v)};
  for (int64_t i = 0; i < n; ++i) out.values[i] = at(a, i, i);
  return out;
}

}  // namespace strata::data::detail
