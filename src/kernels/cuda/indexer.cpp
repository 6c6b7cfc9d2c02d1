#include "kernels/cuda/indexer.hpp"

#include "strata/dispatch/broadcast.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

Indexer broadcast_indexer(const Tensor& t, const Shape& out) {
  const Shape strides = dispatch::broadcast_strides(t, out);
  Indexer ix;
  ix.dims = out.size();
  for (int d = 0; d < out.size(); ++d) ix.sizes[d] = out[d], ix.strides[d] = strides[d];
  return ix;
}

Indexer indexer_of(const Tensor& t) { return broadcast_indexer(t, t.shape()); }

Indexer flat_indexer(const Tensor& t, const Shape& out) {
  const Shape strides = dispatch::broadcast_strides(t, out);
  Indexer ix;
  int64_t positions = 1;
  for (int d = 0; d < out.size(); ++d) {
    positions *= out[d];
    if (out[d] == 1) continue;
    if (ix.dims > 0 && ix.strides[ix.dims - 1] == strides[d] * out[d]) {
      ix.sizes[ix.dims - 1] *= out[d];
      ix.strides[ix.dims - 1] = strides[d];
    } else {
      ix.sizes[ix.dims] = out[d];
      ix.strides[ix.dims] = strides[d];
      ++ix.dims;
    }
  }
  ix.identity = ix.dims == 0 || (ix.dims == 1 && ix.strides[0] == 1);
  ix.narrow = positions <= int64_t{UINT32_MAX};
  return ix;
}

Indexer contiguous_indexer(const Shape& shape) {
  Indexer ix;
  ix.dims = shape.size();
  const Shape strides = contiguous_strides(shape);
  for (int d = 0; d < shape.size(); ++d) ix.sizes[d] = shape[d], ix.strides[d] = strides[d];
  return ix;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
