// The CPU's point-cloud searches (strata/dispatch/pointcloud.hpp): loops over each cloud's points,
// one cloud or query per thread, with no distance matrix in memory; and the scattering of points
// into cells (scatter_max_rows, voxel_cells).
#pragma once
#include <cstdint>

#include "strata/dispatch/pointcloud.hpp"

namespace strata::kernels::cpu {

Tensor farthest_point_sample(const Tensor& points, int64_t m);
Tensor knn(const Tensor& queries, const Tensor& points, int64_t k);
Tensor ball_query(const Tensor& queries, const Tensor& points, double radius, int64_t samples);
Tensor scatter_max_rows(const Tensor& src, const Tensor& index, int64_t count);
dispatch::VoxelCells voxel_cells(const Tensor& xyz, double voxel_size);

}  // namespace strata::kernels::cpu
