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

  // The element offset (from the tensor's first element) of row-major position `linear`.
  STRATA_HD int64_t operator()(int64_t linear) const {
    int64_t offset = 0;
    for (int d = dims - 1; d >= 0; --d) {
      const int64_t q = linear / sizes[d];
      offset += (linear - q * sizes[d]) * strides[d];
      linear = q;
    }
    return offset;
  }
};

// `t` over its own shape.
Indexer indexer_of(const Tensor& t);
// `t` seen with shape `out` under NumPy broadcasting (t's shape must broadcast to it).
Indexer broadcast_indexer(const Tensor& t, const Shape& out);
// A contiguous layout of `shape` (positions map to themselves; for outputs made with empty()).
Indexer contiguous_indexer(const Shape& shape);

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
