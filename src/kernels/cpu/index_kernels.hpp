// CPU kernels that move elements by index (no autograd, no index validation: the ops in
// src/ops check indices first, so that no kernel throws from inside a parallel loop).
// Inputs may have any strides; outputs are fresh contiguous tensors unless written in place.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::kernels::cpu {

// One index map per axis: out[i_0, ..., i_n] = x[map_0[i_0], ..., map_n[i_n]]. An empty map is
// the identity over the whole axis. index_select, flip, roll, tile and pad are all this.
using AxisMaps = std::vector<std::vector<int64_t>>;

// `shape` is the result's: maps[d].size() where a map is given, x's size where not (so that a
// map of no positions, giving an empty result, is not read as the identity).
Tensor take_axes(const Tensor& x, const Shape& shape, const AxisMaps& maps);
// Copies x into y's slab [at, at + x.size(axis)) along `axis`; both contiguous, one dtype.
void write_slab(Tensor& y, int axis, int64_t at, const Tensor& x);

// The adjoint of take_axes: a zero tensor of `shape` (g's dtype) into which g is summed at the
// mapped positions. Maps may repeat positions (index_select, reflect padding).
Tensor put_add_axes(const Tensor& g, const AxisMaps& maps, const Shape& shape);

// PyTorch's gather / scatter_add along `axis`, `index` int64 with x's number of dimensions:
// out[.., j, ..] = x[.., index[.., j, ..], ..];  out[.., index[.., j, ..], ..] += src[.., j, ..].
Tensor gather_along(const Tensor& x, int axis, const Tensor& index);
void scatter_add_along(Tensor& out, int axis, const Tensor& index, const Tensor& src);

// The k smallest (or largest) elements along `axis` in order, ties kept in input order, NaN
// ranked above every number (as PyTorch). Returns {values, int64 indices}.
std::pair<Tensor, Tensor> sort_along(const Tensor& x, int axis, int64_t k, bool descending);

// Row-major positions of the true elements of a bool tensor.
std::vector<int64_t> true_positions(const Tensor& mask);

// out[..., ids[...]] = 1 in a zero tensor of shape ids.shape + [depth].
Tensor one_hot(const std::vector<int64_t>& ids, const Shape& ids_shape, int64_t depth, DType dtype);

}  // namespace strata::kernels::cpu
