// Where the i-th element (row-major over a shape) of a strided tensor lives: the shape and strides
// copied into a small struct that kernels take by value, so a kernel handles views, transposes and
// broadcasting (stride 0) without a contiguous copy first.
#pragma once
#include "kernels/cuda/portable.hpp"
#include "strata/core/tensor.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

struct Indexer {
  int dims = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};  // in elements; 0 on broadcast axes
  // Fast paths (flat_indexer sets them): every position is its own offset (a contiguous
  // operand), or every position fits 32 bits, whose divisions a GPU does in a fraction of the
  // instructions of 64-bit ones. Uniform across a launch, so the branch costs nothing.
  bool identity = false, narrow = false;

  // The element offset (from the tensor's first element) of row-major position `linear`.
  STRATA_HD int64_t operator()(int64_t linear) const {
    if (identity) return linear;
    int64_t offset = 0;
    if (narrow) {
      auto position = static_cast<uint32_t>(linear);
      for (int d = dims - 1; d >= 0; --d) {
        const auto size = static_cast<uint32_t>(sizes[d]), q = position / size;
        offset += static_cast<int64_t>(position - q * size) * strides[d];
        position = q;
      }
      return offset;
    }
    for (int d = dims - 1; d >= 0; --d) {
      const int64_t q = linear / sizes[d];
      offset += (linear - q * sizes[d]) * strides[d];
      linear = q;
    }
    return offset;
  }
};

// Appends an axis of `size` positions `stride` elements apart, merged into the last axis when memory
// steps evenly across the two (its stride is size times this one's). Size-1 axes are the caller's
// to skip.
void append_axis(Indexer& ix, int64_t size, int64_t stride);
// `t` over its own shape.
Indexer indexer_of(const Tensor& t);
// `t` seen with shape `out` under NumPy broadcasting (t's shape must broadcast to it).
Indexer broadcast_indexer(const Tensor& t, const Shape& out);
// broadcast_indexer with size-1 axes dropped, neighbouring axes merged where memory steps evenly
// across them (a contiguous operand becomes one axis of stride 1), and the fast paths' flags set:
// what the element-wise kernels take. Its axes are no longer t's, so code that edits an
// Indexer's axes uses broadcast_indexer.
Indexer flat_indexer(const Tensor& t, const Shape& out);
// A contiguous layout of `shape` (positions map to themselves; for outputs made with empty()).
Indexer contiguous_indexer(const Shape& shape);

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
