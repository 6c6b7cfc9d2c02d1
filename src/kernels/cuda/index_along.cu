// The indexing families that work along one axis (dispatch/index.hpp): gather, scatter-add and
// sort. The ops check index values on the host before these run, so no kernel validates an index.
// Kernels walk their inputs' strides; outputs are fresh contiguous tensors.
#include <utility>

#include "kernels/cuda/index.hpp"
#include "kernels/cuda/indexer.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {
namespace detail {
namespace {  // helpers of this file only

// t's element offsets walked over the positions of `sizes` (no larger than t's shape on any axis
// but `drop`, whose coordinate counts for nothing: the kernel adds that one itself).
Indexer walk(const Tensor& t, const Shape& sizes, int drop = -1) {
  Indexer ix = indexer_of(t);
  for (int d = 0; d < sizes.size(); ++d) ix.sizes[d] = sizes[d];
  if (drop >= 0 && drop < t.dim()) ix.strides[drop] = 0;
  return ix;
}

// A 0-dimensional tensor is one slice of one element along its (absent) axis.
int64_t axis_size(const Shape& shape, int axis) { return shape.size() > 0 ? shape[axis] : 1; }
int64_t axis_stride(const Tensor& t, int axis) { return t.dim() > 0 ? t.strides()[axis] : 0; }

// Orders elements as the CPU's sort does: NaN ranks above every number.
template <class T>
STRATA_HD bool ranks_below(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b != b) return a == a;
    if (a != a) return false;
  }
  return a < b;
}

}  // namespace

template <class T>
void gather_typed(Tensor& out, const Tensor& x, int axis, const Tensor& index) {
  T* o = out.data<T>();
  const T* in = x.data<T>();
  const int64_t* idx = index.data<int64_t>();
  const Indexer x_at = walk(x, index.shape(), axis), idx_at = indexer_of(index);
  const int64_t xs = axis_stride(x, axis);
  for_each_index(out.numel(), "gather_along", [=] STRATA_HD(int64_t i) { o[i] = in[x_at(i) + idx[idx_at(i)] * xs]; });
}

template <class T>
void scatter_add_typed(Tensor& out, int axis, const Tensor& index, const Tensor& src) {
  T* o = out.data<T>();
  const T* s = src.data<T>();
  const int64_t* idx = index.data<int64_t>();
  const int64_t os = axis_stride(out, axis);
  if constexpr (sizeof(T) == 1) {
    // CUDA has no 8-bit atomicAdd: one thread per row along `axis` (rows differ in some other
    // coordinate, so no two threads share a target).
    Shape rows = index.shape();
    if (rows.size() > 0) rows[axis] = 1;
    const Indexer out_at = walk(out, rows, axis), idx_at = walk(index, rows), src_at = walk(src, rows);
    const int64_t n = axis_size(index.shape(), axis), is = axis_stride(index, axis), ss = axis_stride(src, axis);
    for_each_index(rows.numel(), "scatter_add_along", [=] STRATA_HD(int64_t r) {
      T* orow = o + out_at(r);
      const int64_t* irow = idx + idx_at(r);
      const T* srow = s + src_at(r);
      for (int64_t j = 0; j < n; ++j) orow[irow[j * is] * os] += srow[j * ss];
    });
  } else {
    // One thread per index element; targets may repeat, so the adds are atomic.
    const Indexer out_at = walk(out, index.shape(), axis), idx_at = indexer_of(index),
                  src_at = walk(src, index.shape());
    for_each_index(index.numel(), "scatter_add_along", [=] STRATA_HD(int64_t i) {
      atomic_add(o + out_at(i) + idx[idx_at(i)] * os, s[src_at(i)]);
    });
  }
}

// One thread per slice: a stable bottom-up merge sort of the slice's positions (O(n log n) time,
// 2n int64 of scratch per slice of n), then its first k written out.
template <class T>
void sort_typed(Tensor& values, Tensor& indices, const Tensor& x, int axis, int64_t k, bool descending) {
  T* vo = values.data<T>();
  int64_t* io = indices.data<int64_t>();
  const T* in = x.data<T>();
  const int64_t n = axis_size(x.shape(), axis), xs = axis_stride(x, axis), os = axis_stride(values, axis);
  Shape rows = x.shape();
  if (rows.size() > 0) rows[axis] = 1;
  Tensor scratch = Tensor::empty({2 * rows.numel() * n}, kInt64, x.device());
  int64_t* buf = scratch.data<int64_t>();
  const Indexer x_at = walk(x, rows), out_at = walk(values, rows);
  for_each_index(rows.numel(), "sort_along", [=] STRATA_HD(int64_t r) {
    const T* s = in + x_at(r);
    int64_t *a = buf + 2 * r * n, *b = a + n;
    for (int64_t j = 0; j < n; ++j) a[j] = j;
    for (int64_t w = 1; w < n; w *= 2) {
      for (int64_t lo = 0; lo < n; lo += 2 * w) {
        const int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
        int64_t p = lo, q = mid;
        // The right run's element goes first only when it ranks strictly first: ties keep input order.
        for (int64_t t = lo; t < hi; ++t) {
          const bool right = q < hi && (p == mid || (descending ? ranks_below(s[a[p] * xs], s[a[q] * xs])
                                                                 : ranks_below(s[a[q] * xs], s[a[p] * xs])));
          b[t] = right ? a[q++] : a[p++];
        }
      }
      int64_t* t = a;
      a = b;
      b = t;
    }
    const int64_t base = out_at(r);
    for (int64_t j = 0; j < k; ++j) {
      vo[base + j * os] = s[a[j] * xs];
      io[base + j * os] = a[j];
    }
  });
}

}  // namespace detail

Tensor gather_along(const Tensor& x, int axis, const Tensor& index) {
  Tensor out = Tensor::empty(index.shape(), x.dtype(), x.device());
  dispatch_all(x.dtype(), [&](auto tag) { detail::gather_typed<typename decltype(tag)::type>(out, x, axis, index); });
  return out;
}

void scatter_add_along(Tensor& out, int axis, const Tensor& index, const Tensor& src) {
  if (index.numel() == 0) return;
  dispatch_numeric(out.dtype(), "scatter_add",
                   [&](auto tag) { detail::scatter_add_typed<typename decltype(tag)::type>(out, axis, index, src); });
}

std::pair<Tensor, Tensor> sort_along(const Tensor& x, int axis, int64_t k, bool descending) {
  Shape shape = x.shape();
  if (x.dim() > 0) shape[axis] = k;
  Tensor values = Tensor::empty(shape, x.dtype(), x.device());
  Tensor indices = Tensor::empty(shape, kInt64, x.device());
  if (values.numel() == 0) return {values, indices};
  dispatch_all(x.dtype(), [&](auto tag) {
    detail::sort_typed<typename decltype(tag)::type>(values, indices, x, axis, k, descending);
  });
  return {values, indices};
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
