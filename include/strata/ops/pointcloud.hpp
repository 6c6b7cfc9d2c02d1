// Point-cloud ops (docs/pointclouds.md): the sampling, neighbourhood and interpolation steps of
// PointNet++ and the Chamfer distance, on batched clouds [B, N, D] (D coordinates, usually 3;
// float32 or float64). Index results are int64 and carry no gradient; group_points,
// three_interpolate and chamfer_distance are differentiable in their features and points. The
// searches run on the CPU, CUDA and meta (shape-only) devices (strata/dispatch/pointcloud.hpp);
// a NaN or infinite coordinate is refused.
#pragma once
#include <cstdint>

#include "strata/core/tensor.hpp"

namespace strata {

// Farthest point sampling: int64 [B, m], the first index 0, each next the point farthest from
// those chosen so far (squared Euclidean distance; ties to the lower index), as PointNet++'s
// furthest_point_sample. 1 <= m <= N.
Tensor farthest_point_sample(const Tensor& points, int64_t m);

// The k nearest points of each query: int64 [B, Q, k] into points [B, N, D] for queries
// [B, Q, D], nearest first (ties to the lower index). 1 <= k <= N.
Tensor knn(const Tensor& queries, const Tensor& points, int64_t k);

// Up to `samples` points within `radius` (distance < radius) of each query, in index order, as
// PointNet++'s ball_query: int64 [B, Q, samples], the slots past the points found filled with the
// first point found, and all 0 when none is within the radius.
Tensor ball_query(const Tensor& queries, const Tensor& points, double radius, int64_t samples);

// features [B, N, C] gathered at idx [B, ...] (int64 into N) -> [B, ..., C]; differentiable in
// `features` (its gradient adds up where an index repeats).
Tensor group_points(const Tensor& features, const Tensor& idx);

// Features [B, N, C] of points `known` [B, N, D] carried to points `unknown` [B, Q, D] by inverse
// distance weighting of each unknown point's three nearest known points (PointNet++'s feature
// propagation: weights 1 / (distance + 1e-8), normalised) -> [B, Q, C]. N >= 3. Differentiable in
// `features`; the weights are constants.
Tensor three_interpolate(const Tensor& features, const Tensor& known, const Tensor& unknown);

// Chamfer distance [B] between clouds a [B, N, D] and b [B, M, D]: the mean over a's points of the
// squared distance to the nearest point of b, plus the same from b to a. Differentiable in both.
Tensor chamfer_distance(const Tensor& a, const Tensor& b);

}  // namespace strata
