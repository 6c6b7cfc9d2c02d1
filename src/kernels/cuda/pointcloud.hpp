// The CUDA backend's point-cloud searches and cell scatters, each with its stub's signature.
// STRATA_CUDA_POINTCLOUD_STUBS lists them (families.hpp registers them).
#pragma once
#include "kernels/cuda/portable.hpp"
#include "strata/dispatch/pointcloud.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

// The largest k of knn here: each query keeps its k nearest in its own thread's arrays.
inline constexpr int64_t kMaxKnnK = 64;

Tensor farthest_point_sample(const Tensor& points, int64_t m);
Tensor knn(const Tensor& queries, const Tensor& points, int64_t k);
Tensor ball_query(const Tensor& queries, const Tensor& points, double radius, int64_t samples);
Tensor scatter_max_rows(const Tensor& src, const Tensor& index, int64_t count);
dispatch::VoxelCells voxel_cells(const Tensor& xyz, double voxel_size);

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda

#define STRATA_CUDA_POINTCLOUD_STUBS(X) X(farthest_point_sample) X(knn) X(ball_query) X(scatter_max_rows) X(voxel_cells)
