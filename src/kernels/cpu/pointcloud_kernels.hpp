// The CPU's point-cloud searches (strata/dispatch/pointcloud.hpp): loops over each cloud's points,
// one cloud or query per thread, with no distance matrix in memory.
#pragma once
#include <cstdint>

#include "strata/core/tensor.hpp"

namespace strata::kernels::cpu {

Tensor farthest_point_sample(const Tensor& points, int64_t m);
Tensor knn(const Tensor& queries, const Tensor& points, int64_t k);
Tensor ball_query(const Tensor& queries, const Tensor& points, double radius, int64_t samples);

}  // namespace strata::kernels::cpu
