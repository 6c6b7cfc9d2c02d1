// The CUDA backend's indexing families, each with its stub's signature. STRATA_CUDA_INDEX_STUBS lists
// the ones implemented (families.hpp registers them).
#pragma once
#include "kernels/cuda/portable.hpp"
#include "strata/dispatch/index.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

Tensor take_axes(const Tensor& x, const Shape& shape, const dispatch::AxisMaps& maps);
void write_slab(Tensor& y, int axis, int64_t at, const Tensor& x);
Tensor put_add_axes(const Tensor& g, const dispatch::AxisMaps& maps, const Shape& shape);
Tensor gather_along(const Tensor& x, int axis, const Tensor& index);
void scatter_add_along(Tensor& out, int axis, const Tensor& index, const Tensor& src);
std::pair<Tensor, Tensor> sort_along(const Tensor& x, int axis, int64_t k, bool descending);
std::vector<int64_t> true_positions(const Tensor& mask);
Tensor one_hot(const Tensor& ids, int64_t depth, DType dtype);

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda

#define STRATA_CUDA_INDEX_STUBS(X)                                                                 \
  X(take_axes) X(write_slab) X(put_add_axes) X(gather_along) X(scatter_add_along) X(sort_along)     \
  X(true_positions) X(one_hot)
