#include "kernels/cuda/indexer.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

Indexer broadcast_indexer(const Tensor& t, const Shape& out) {
  Indexer ix;
  ix.dims = out.size();
  const int lead = out.size() - t.dim();
  STRATA_CHECK(lead >= 0, "broadcast_indexer: a tensor of shape ", t.shape().str(), " does not broadcast to ",
               out.str());
  for (int d = 0; d < out.size(); ++d) {
    ix.sizes[d] = out[d];
    const int td = d - lead;
    ix.strides[d] = (td < 0 || t.shape()[td] == 1) ? 0 : t.strides()[td];
  }
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
