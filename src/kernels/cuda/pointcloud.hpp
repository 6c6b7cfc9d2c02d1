// The CUDA backend's point-cloud searches, each with its stub's signature.
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

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda

#define STRATA_CUDA_POINTCLOUD_STUBS(X) X(farthest_point_sample) X(knn) X(ball_query)
