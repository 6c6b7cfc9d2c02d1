// Squared Euclidean distances between every point of two batched clouds, the cost matrix of
// the Chamfer distance (ops/pointcloud.hpp) and the earth mover's distance (points/scatter.hpp).
// Kept out of the umbrella header: few programs need it, and every file that includes the
// umbrella would rebuild when it changes.
#pragma once
#include "strata/core/tensor.hpp"

namespace strata {

// [B, N, M] with |a_i - b_j|^2 for clouds a [B, N, D] and b [B, M, D], computed as
// |a|^2 + |b|^2 - 2 a.b (one matrix product, no [B, N, M, D] difference) and clamped at 0 where
// rounding makes it negative. Differentiable in both clouds.
Tensor pairwise_squared_distances(const Tensor& a, const Tensor& b);

}  // namespace strata
