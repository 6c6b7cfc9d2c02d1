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

void append_axis(Indexer& ix, int64_t size, int64_t stride) {
  if (ix.dims > 0 && ix.strides[ix.dims - 1] == stride * size) {
    ix.sizes[ix.dims - 1] *= size;
    ix.strides[ix.dims - 1] = stride;
  } else {
    ix.sizes[ix.dims] = size;
    ix.strides[ix.dims] = stride;
    ++ix.dims;
  }
}

Indexer flat_indexer(const Tensor& t, const Shape& out) {
  const Shape strides = dispatch::broadcast_strides(t, out);
  Indexer ix;
  int64_t positions = 1;
  for (int d = 0; d < out.size(); ++d) {
    positions *= out[d];
    if (out[d] != 1) append_axis(ix, out[d], strides[d]);
  }
  ix.identity = ix.dims == 0 || (ix.dims == 1 && ix.strides[0] == 1);
  ix.narrow = positions <= int64_t{UINT32_MAX};
  return ix;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
