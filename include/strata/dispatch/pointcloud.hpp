// The point-cloud search families (strata/ops/pointcloud.hpp, docs/pointclouds.md): farthest point
// sampling, k nearest neighbours and ball query over batched clouds. Inputs are contiguous
// float32 or float64 [B, N, D] clouds (queries and points of one dtype, checked by the op with
// the sizes and arguments); results are fresh int64 tensors on the inputs' device. Distances are
// squared Euclidean in the clouds' own precision, so every backend ties where the CPU does.
#pragma once
#include <cstdint>

#include "strata/dispatch/stub.hpp"

namespace strata::dispatch {

// int64 [B, m]: index 0 first, then each time the point farthest from those chosen so far
// (ties to the lower index). 1 <= m <= N.
extern Stub<Tensor(const Tensor& points, int64_t m)> farthest_point_sample;
// int64 [B, Q, k]: each query's k nearest points, nearest first (ties to the lower index).
// 1 <= k <= N.
extern Stub<Tensor(const Tensor& queries, const Tensor& points, int64_t k)> knn;
// int64 [B, Q, samples]: the first `samples` points (in index order) at distance < radius, the
// slots past those found holding the first found, all 0 when none is. radius > 0, samples >= 1.
extern Stub<Tensor(const Tensor& queries, const Tensor& points, double radius, int64_t samples)> ball_query;

}  // namespace strata::dispatch
