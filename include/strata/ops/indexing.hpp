// Indexing ops: picking elements by integer index or bool mask, and the embedding lookup.
// Indices are int64 (int32 is accepted too), never negative, and checked against the axis
// size; a bad index throws strata::Error naming the op, the index and the shape.
#pragma once
#include "strata/core/tensor.hpp"

namespace strata {

// The slices x[..., index[j], ...] along `axis`; index is 1-D. The result has index.numel()
// elements along `axis`. Gradients add up where an index repeats.
Tensor index_select(const Tensor& x, int64_t axis, const Tensor& index);
// PyTorch's gather: out[i][j][k] = x[i][index[i][j][k]][k] for axis 1. index has x's number of
// dimensions and no size above x's except along `axis`; the result has index's shape.
Tensor gather(const Tensor& x, int64_t axis, const Tensor& index);
// PyTorch's scatter_add (not in place): a copy of x with out[i][index[i][j][k]][k] += src[i][j][k]
// for axis 1. index has no size above src's, nor above x's except along `axis`.
Tensor scatter_add(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src);
// The elements of x where the bool mask (broadcast with x) is true, as a 1-D tensor.
Tensor masked_select(const Tensor& x, const Tensor& mask);
// x with `value` where the bool mask (broadcastable to x's shape) is true.
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value);
// ids (integers in [0, depth)) -> ids.shape + [depth], 1 at each id. depth = -1 takes max(ids) + 1.
// Not differentiable.
Tensor one_hot(const Tensor& ids, int64_t depth = -1, DType dtype = kFloat32);
// The embedding lookup: rows of weight [V, D] picked by integer ids of any shape -> [..., D].
// The gradient of weight is the output gradient summed into the looked-up rows.
Tensor embedding(const Tensor& weight, const Tensor& ids);

}  // namespace strata
