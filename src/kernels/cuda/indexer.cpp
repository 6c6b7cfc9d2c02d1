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

Indexer contiguous_indexer(const Shape& shape) {
  Indexer ix;
  ix.dims = shape.size();
  const Shape strides = contiguous_strides(shape);
  for (int d = 0; d < shape.size(); ++d) ix.sizes[d] = shape[d], ix.strides[d] = strides[d];
  return ix;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
