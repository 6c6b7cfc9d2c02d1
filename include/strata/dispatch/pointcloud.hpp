// The point-cloud search families (strata/ops/pointcloud.hpp, docs/pointclouds.md): farthest point
// sampling, k nearest neighbours and ball query over batched clouds; and the scattering of points
// into cells behind strata/points/scatter.hpp (scatter_max_rows, voxel_cells). Inputs are contiguous
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

// int64 [count, C]: for each cell and column of src [N, C] (contiguous float32 or float64), the
// row holding the maximum over the rows whose index (contiguous int64 [N]) is that cell, as a
// scan in row order keeps it: the first row, replaced by each later row strictly greater (so ties
// go to the first row, and a NaN is kept only where the first row has it); -1 in a cell no row
// reaches. Each backend checks the index against [0, count), in the CPU's words.
extern Stub<Tensor(const Tensor& src, const Tensor& index, int64_t count)> scatter_max_rows;

// The occupied cells of a grid of cubes of side voxel_size over xyz (contiguous float64 [N, 3]):
// cell floor(p / voxel_size) per axis, numbered in order of first appearance. Each backend
// refuses a point whose cell is not finite or is 2^40 or more away from 0 on an axis, in the
// CPU's words (the first such point, first such axis).
struct VoxelCells {
  Tensor point_voxel;  // int64 [N]: the voxel of each point
  Tensor coordinates;  // int64 [V, 3]: each voxel's cell
  Tensor counts;       // int64 [V]: points per voxel
};
extern Stub<VoxelCells(const Tensor& xyz, double voxel_size)> voxel_cells;

}  // namespace strata::dispatch
