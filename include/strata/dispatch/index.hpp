// The kernel families that move elements by index: per-axis index maps (index_select, flip, roll,
// tile, pad), slabs, gather / scatter-add, sorting, masks and one-hot. No index validation:
// the ops check indices first, so that no kernel throws from inside a parallel loop. Inputs may
// have any strides; outputs are fresh contiguous tensors unless written in place.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "strata/dispatch/stub.hpp"

namespace strata::dispatch {

// One index map per axis: out[i_0, ..., i_n] = x[map_0[i_0], ..., map_n[i_n]]. An empty map is
// the identity over the whole axis.
using AxisMaps = std::vector<std::vector<int64_t>>;

// `shape` is the result's: maps[d].size() where a map is given, x's size where not.
extern Stub<Tensor(const Tensor& x, const Shape& shape, const AxisMaps& maps)> take_axes;
// Copies x into y's slab [at, at + x.size(axis)) along `axis`; both contiguous, one dtype.
extern Stub<void(Tensor& y, int axis, int64_t at, const Tensor& x)> write_slab;
// The adjoint of take_axes: a zero tensor of `shape` (g's dtype) into which g is summed at the
// mapped positions. Maps may repeat positions.
extern Stub<Tensor(const Tensor& g, const AxisMaps& maps, const Shape& shape)> put_add_axes;
// PyTorch's gather / scatter_add along `axis`, `index` int64 with x's number of dimensions.
extern Stub<Tensor(const Tensor& x, int axis, const Tensor& index)> gather_along;
extern Stub<void(Tensor& out, int axis, const Tensor& index, const Tensor& src)> scatter_add_along;
// The k smallest (or largest) elements along `axis` in order, ties kept in input order, NaN
// ranked above every number. Returns {values, int64 indices}.
extern Stub<std::pair<Tensor, Tensor>(const Tensor& x, int axis, int64_t k, bool descending)> sort_along;
// Row-major positions of the true elements of a bool tensor (on the host: the count sizes the
// result).
extern Stub<std::vector<int64_t>(const Tensor& mask)> true_positions;
// out[..., ids[...]] = 1 in a zero tensor of shape ids.shape + [depth]; ids contiguous int64.
extern Stub<Tensor(const Tensor& ids, int64_t depth, DType dtype)> one_hot;

}  // namespace strata::dispatch
