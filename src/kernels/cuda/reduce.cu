// Reductions, arg-max / arg-min and prefix sums: one thread per output element, reading its
// inputs in place through Indexers (no permuted copy). A reduction with few outputs and a long
// range runs in two passes: chunks of each range into a scratch tensor, then the chunks.
#include "kernels/cuda/elementwise.hpp"
#include "kernels/cuda/reduce.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

Indexer masked_indexer(const Tensor& t, const std::vector<bool>& mask, bool picked) {
  Indexer ix;
  for (int d = 0; d < t.dim(); ++d) {
    const int64_t size = t.shape()[d], stride = t.strides()[d];
    if (mask[d] != picked || size == 1) continue;
    append_axis(ix, size, stride);
  }
  return ix;
}

Indexer rows_along(const Tensor& t, int axis) {
  std::vector<bool> mask(t.dim(), false);
  if (axis < t.dim()) mask[axis] = true;
  return masked_indexer(t, mask, false);
}

namespace detail {

using dispatch::ReduceOp;

// Sums and products of integers and bools widen to int64 (reduced_dtype); float sums add in
// double, as the CPU's blocked sums do.
template <ReduceOp op, class T>
using Out =
    std::conditional_t<(op == ReduceOp::sum || op == ReduceOp::prod) && !std::is_floating_point_v<T>, int64_t, T>;
template <ReduceOp op, class T>
using Acc = std::conditional_t<op == ReduceOp::sum && std::is_floating_point_v<T>, double, Out<op, T>>;

// max and min propagate NaN, as the CPU does.
template <ReduceOp op, class A>
STRATA_HD inline A combine(A acc, A v) {
  if constexpr (op == ReduceOp::sum) return acc + v;
  else if constexpr (op == ReduceOp::prod) return static_cast<A>(acc * v);
  else if constexpr (op == ReduceOp::max) return (v > acc || v != v) ? v : acc;
  else return (v < acc || v != v) ? v : acc;
}

// For k in [0, n * step): dst[k] is the reduction of src[rows(i) + range(r)] over r = c, c + step,
// ... < R, where i = k / step and c = k % step (step = 1: the whole range). Interleaved chunks
// keep neighbouring threads on neighbouring elements.
template <ReduceOp op, class T, class A, class D>
void reduce_range(const T* src, Indexer rows, Indexer range, int64_t R, int64_t n, int64_t step, D* dst) {
  for_each_index(n * step, "reduce", [=] STRATA_HD(int64_t k) {
    const int64_t i = k / step, c = k % step;
    const T* p = src + rows(i);
    A acc = static_cast<A>(p[range(c)]);
    for (int64_t r = c + step; r < R; r += step) acc = combine<op>(acc, static_cast<A>(p[range(r)]));
    dst[k] = static_cast<D>(acc);
  });
}

// Two passes once one thread per output would leave the GPU mostly idle: about 64K threads in
// all, each chunk at least 32 elements long, at most 1024 chunks per output.
template <ReduceOp op, class T>
void reduce_typed(const Tensor& x, const std::vector<bool>& mask, int64_t R, Tensor& out) {
  using A = Acc<op, T>;
  const T* in = x.data<T>();
  Out<op, T>* o = out.data<Out<op, T>>();
  const Indexer rows = masked_indexer(x, mask, false), range = masked_indexer(x, mask, true);
  const int64_t n = out.numel();
  const int64_t chunks = std::min({int64_t{1024}, (int64_t{1} << 16) / n, R / 32});
  if (chunks < 2) {
    reduce_range<op, T, A>(in, rows, range, R, n, 1, o);
    return;
  }
  Tensor part = Tensor::empty({n, chunks}, dtype_of<A>::value, x.device());
  reduce_range<op, T, A>(in, rows, range, R, n, chunks, part.data<A>());
  const std::vector<bool> chunk_axis{false, true};
  const Indexer part_rows = masked_indexer(part, chunk_axis, false);
  const Indexer part_range = masked_indexer(part, chunk_axis, true);
  reduce_range<op, A, A>(part.data<A>(), part_rows, part_range, chunks, n, 1, o);
}

template <class T>
void arg_reduce_typed(bool is_max, const Tensor& x, int axis, Tensor& out) {
  const T* in = x.data<T>();
  int64_t* o = out.data<int64_t>();
  const Indexer rows = rows_along(x, axis);
  const int64_t R = x.shape()[axis], stride = x.strides()[axis];
  // The first extremum wins; a NaN is never greater or less, so it wins only at index 0 (as on the CPU).
  for_each_index(out.numel(), is_max ? "argmax" : "argmin", [=] STRATA_HD(int64_t i) {
    const T* p = in + rows(i);
    int64_t best = 0;
    T cur = p[0];
    for (int64_t r = 1; r < R; ++r) {
      const T v = p[r * stride];
      if (is_max ? v > cur : v < cur) best = r, cur = v;
    }
    o[i] = best;
  });
}

template <class T>
void cumsum_typed(const Tensor& x, int axis, bool reverse, Tensor& out) {
  const T* in = x.data<T>();
  T* o = out.data<T>();
  const Indexer rows_in = rows_along(x, axis), rows_out = rows_along(out, axis);
  const bool scalar = x.dim() == 0;
  const int64_t R = scalar ? 1 : x.shape()[axis];
  const int64_t in_step = scalar ? 0 : x.strides()[axis], out_step = scalar ? 0 : out.strides()[axis];
  for_each_index(R ? x.numel() / R : 0, "cumsum", [=] STRATA_HD(int64_t i) {
    const T* p = in + rows_in(i);
    T* q = o + rows_out(i);
    T acc = 0;
    for (int64_t k = 0; k < R; ++k) {
      const int64_t r = reverse ? R - 1 - k : k;
      q[r * out_step] = acc += p[r * in_step];
    }
  });
}

}  // namespace detail

Tensor reduce(dispatch::ReduceOp op, const Tensor& x, const std::vector<bool>& mask, bool keepdim) {
  using dispatch::ReduceOp;
  Tensor out = Tensor::empty(dispatch::reduced_shape(x.shape(), mask, keepdim), dispatch::reduced_dtype(op, x.dtype()),
                             x.device());
  int64_t R = 1;
  for (int d = 0; d < x.dim(); ++d)
    if (mask[d]) R *= x.shape()[d];
  if (dispatch::reduce_empty_range(op, x.shape(), R, out) || out.numel() == 0) return out;
  dispatch_all(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    switch (op) {
      case ReduceOp::sum: detail::reduce_typed<ReduceOp::sum, T>(x, mask, R, out); break;
      case ReduceOp::prod: detail::reduce_typed<ReduceOp::prod, T>(x, mask, R, out); break;
      case ReduceOp::max: detail::reduce_typed<ReduceOp::max, T>(x, mask, R, out); break;
      case ReduceOp::min: detail::reduce_typed<ReduceOp::min, T>(x, mask, R, out); break;
    }
  });
  return out;
}

Tensor arg_reduce(bool is_max, const Tensor& x, int axis, bool keepdim) {
  // A scalar's shape()[0] reads 0: it fails this check, as on the CPU.
  STRATA_CHECK(x.shape()[axis] > 0, is_max ? "argmax" : "argmin", ": cannot reduce an empty axis (shape ",
               x.shape().str(), ")");
  std::vector<bool> mask(x.dim(), false);
  mask[axis] = true;
  Tensor out = Tensor::empty(dispatch::reduced_shape(x.shape(), mask, keepdim), kInt64, x.device());
  dispatch_all(x.dtype(), [&](auto tag) {
    detail::arg_reduce_typed<typename decltype(tag)::type>(is_max, x, axis, out);
  });
  return out;
}

Tensor cumsum(const Tensor& x, int axis, bool reverse) {
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  dispatch_numeric(x.dtype(), "cumsum",
                   [&](auto tag) { detail::cumsum_typed<typename decltype(tag)::type>(x, axis, reverse, out); });
  return out;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
