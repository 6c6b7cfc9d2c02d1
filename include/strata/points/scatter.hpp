// Scattering point features into cells: scatter_max (PyTorch Scatter's, the pooling of
// voxel-based and graph networks) and voxelisation of a cloud on a regular grid (VoxelNet's and
// PointPillars' first step), and the approximate earth mover's distance between clouds.
#pragma once
#include <cstdint>

#include "strata/core/tensor.hpp"

namespace strata::points {

// src [N, C] (float) and index int64 [N] in [0, count) -> [count, C]: each cell's elementwise
// maximum over the rows sent to it, 0 in a cell no row reaches. Differentiable in src: a cell's
// gradient goes to the row that held its maximum (the first such row on ties).
Tensor scatter_max(const Tensor& src, const Tensor& index, int64_t count);

struct Voxels {
  Tensor point_voxel;  // int64 [N]: the voxel of each point, numbered in order of first appearance
  Tensor coordinates;  // int64 [V, 3]: each voxel's integer cell (floor(p / size) per axis)
  Tensor counts;       // int64 [V]: points per voxel
};
// The occupied cells of a grid of cubes of side voxel_size over points [N, 3 + F] (the first three
// columns). Pool per voxel with scatter_max(features, point_voxel, V) (or scatter_add / counts for
// a mean). Cells per axis are bounded (|p / voxel_size| < 2^40), so a far point is refused, not
// wrapped.
Voxels voxelize(const Tensor& points, double voxel_size);

// An approximate earth mover's distance [B] between clouds a and b [B, N, D] of the same size:
// the mean squared distance between matched points under the transport plan of entropic optimal
// transport (Sinkhorn's iterations in the log domain, `epsilon` the entropy's weight relative to
// the mean cost, `iterations` rounds), as the EMD losses of point-cloud generation use. The plan
// is a constant of the gradient (the envelope theorem: at the optimum, the cost's gradient is the
// plan's), so memory is one [N, N] matrix per cloud. A smaller epsilon is closer to the exact
// distance and needs more iterations.
Tensor earth_movers_distance(const Tensor& a, const Tensor& b, double epsilon = 0.01, int64_t iterations = 100);

}  // namespace strata::points
