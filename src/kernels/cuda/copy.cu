// Copies, casts and fills: one thread per element of the destination, each reading its source
// element through a flat Indexer (indexer.hpp: merged axes, contiguous and 32-bit fast paths).
#include "kernels/cuda/elementwise.hpp"
#include "kernels/cuda/indexer.hpp"
#include "strata/dispatch/convert.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {
namespace detail {

template <class O, class I>
void copy_typed(Tensor& dst, const Tensor& src) {
  O* out = dst.data<O>();
  const I* in = src.data<I>();
  const Indexer to = flat_indexer(dst, dst.shape()), from = flat_indexer(src, dst.shape());
  for_each_index(dst.numel(), "copy_into",
                 [=] STRATA_HD(int64_t i) { out[to(i)] = dispatch::convert_element<O>(in[from(i)]); });
}

template <class T>
void fill_typed(Tensor& t, T value) {
  T* out = t.data<T>();
  const Indexer at = flat_indexer(t, t.shape());
  for_each_index(t.numel(), "fill", [=] STRATA_HD(int64_t i) { out[at(i)] = value; });
}

}  // namespace detail

void copy_into(Tensor& dst, const Tensor& src) {
  dispatch::check_copy_shape(dst.shape(), src.shape());
  dispatch_all(dst.dtype(), [&](auto out_tag) {
    dispatch_all(src.dtype(), [&](auto in_tag) {
      detail::copy_typed<typename decltype(out_tag)::type, typename decltype(in_tag)::type>(dst, src);
    });
  });
}

Tensor contiguous_copy(const Tensor& x) { return dispatch::copy_as(x, x.dtype()); }

Tensor dense(const Tensor& x) { return x.is_contiguous() ? x : contiguous_copy(x); }

Tensor cast(const Tensor& x, DType dtype) { return dispatch::copy_as(x, dtype); }

void fill(Tensor& t, double value) {
  dispatch_all(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::fill_typed<T>(t, dispatch::convert_element<T>(value));
  });
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
