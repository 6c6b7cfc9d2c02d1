// Eigen-decomposition of a small dense symmetric matrix by cyclic Jacobi rotations (used by ZCA
// whitening). O(n^3) per sweep, a handful of sweeps: meant for up to a few hundred dimensions.
#pragma once
#include <cstdint>
#include <vector>

namespace strata::data::detail {

struct SymmetricEigen {
  std::vector<double> values;   // n eigenvalues, in no particular order
  std::vector<double> vectors;  // n x n, row-major; column k is the unit eigenvector of values[k]
};

// `matrix` is n x n, row-major, symmetric (only its symmetry is assumed, not checked).
SymmetricEigen symmetric_eigen(std::vector<double> matrix, int64_t n);

}  // namespace strata::data::detail
