// Reductions view the input as [A, R, B] (R = the reduced axes, made adjacent by a permuted copy
// when they are not) so that both common cases are tight loops: B == 1 reduces contiguous rows,
// B > 1 accumulates whole rows of B (e.g. a bias gradient summed over the batch).
#include "kernels/cpu/reduce.hpp"

#include <memory>

#include "kernels/cpu/elementwise.hpp"
#include "kernels/cpu/loops.hpp"

namespace strata::kernels::cpu {
namespace {

// Sum of n contiguous values: float rows are summed in blocks whose partial sums accumulate in
// double, so 10M float32 values keep ~7 significant digits. Inside a block, 32 independent
// lanes (four AVX registers) hide the latency of the vector add.
template <class T>
double sum_row(const T* p, int64_t n) {
  constexpr int64_t kBlock = 2048, kLanes = 32;
  double total = 0;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = b + kBlock < n ? b + kBlock : n;
    T lanes[kLanes] = {};
    int64_t i = b;
    for (; i + kLanes <= e; i += kLanes)
      for (int64_t j = 0; j < kLanes; ++j) lanes[j] += p[i + j];
    T acc = 0;
    for (; i < e; ++i) acc += p[i];
    for (int64_t j = 0; j < kLanes; ++j) acc += lanes[j];
    total += acc;
  }
  return total;
}

template <class T, class Out>
Out reduce_row(ReduceOp op, const T* p, int64_t n) {
  switch (op) {
    case ReduceOp::sum:
      if constexpr (std::is_floating_point_v<T>) return static_cast<Out>(sum_row(p, n));
      else {
        Out acc = 0;
        for (int64_t i = 0; i < n; ++i) acc += static_cast<Out>(p[i]);
        return acc;
      }
    case ReduceOp::prod: {
      Out acc = 1;
      for (int64_t i = 0; i < n; ++i) acc = static_cast<Out>(acc * static_cast<Out>(p[i]));
      return acc;
    }
    case ReduceOp::max: {
      T m = p[0];
      for (int64_t i = 1; i < n; ++i) m = (p[i] > m || p[i] != p[i]) ? p[i] : m;
      return static_cast<Out>(m);
    }
    case ReduceOp::min: {
      T m = p[0];
      for (int64_t i = 1; i < n; ++i) m = (p[i] < m || p[i] != p[i]) ? p[i] : m;
      return static_cast<Out>(m);
    }
  }
  return Out(0);
}

template <class Out>
void combine_rows(ReduceOp op, Out* acc, const Out* row, int64_t n) {
  switch (op) {
    case ReduceOp::sum:
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) acc[i] += row[i];
      break;
    case ReduceOp::prod:
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) acc[i] = static_cast<Out>(acc[i] * row[i]);
      break;
    case ReduceOp::max:
      for (int64_t i = 0; i < n; ++i) acc[i] = (row[i] > acc[i] || row[i] != row[i]) ? row[i] : acc[i];
      break;
    case ReduceOp::min:
      for (int64_t i = 0; i < n; ++i) acc[i] = (row[i] < acc[i] || row[i] != row[i]) ? row[i] : acc[i];
      break;
  }
}

// x (contiguous) as [A, R, B] -> out [A, B].
template <class T, class Out>
void reduce_arb(ReduceOp op, const T* x, Out* out, int64_t A, int64_t R, int64_t B) {
  if (B == 1) {
    if (A == 1 && R >= 2 * kParallelGrain) {
      // One long row: partial results per thread, then combined.
      int nt = apply_thread_budget();
      std::unique_ptr<Out[]> partial(new Out[nt]);  // not vector<Out>: Out may be bool
      std::vector<char> used(nt, 0);
      int64_t chunk = (R + nt - 1) / nt;
#pragma omp parallel for schedule(static)
      for (int t = 0; t < nt; ++t) {
        int64_t b = t * chunk, e = b + chunk < R ? b + chunk : R;
        if (b < e) {
          partial[t] = reduce_row<T, Out>(op, x + b, e - b);
          used[t] = 1;
        }
      }
      Out acc = partial[0];
      for (int t = 1; t < nt; ++t)
        if (used[t]) combine_rows(op, &acc, &partial[t], 1);
      out[0] = acc;
      return;
    }
    parallel_for(A, R >= kParallelGrain ? 1 : kParallelGrain / (R + 1), [&](int64_t b, int64_t e) {
      for (int64_t a = b; a < e; ++a) out[a] = reduce_row<T, Out>(op, x + a * R, R);
    });
    return;
  }
  parallel_for(A, 1, [&](int64_t ab, int64_t ae) {
    std::unique_ptr<Out[]> row(new Out[B]);
    for (int64_t a = ab; a < ae; ++a) {
      Out* o = out + a * B;
      const T* base = x + a * R * B;
      for (int64_t j = 0; j < B; ++j) o[j] = static_cast<Out>(base[j]);
      for (int64_t r = 1; r < R; ++r) {
        const T* src = base + r * B;
        if constexpr (std::is_same_v<T, Out>) {
          combine_rows(op, o, src, B);
        } else {
          for (int64_t j = 0; j < B; ++j) row[j] = static_cast<Out>(src[j]);
          combine_rows(op, o, row.get(), B);
        }
      }
    }
  });
}

// Permutes x so the reduced axes are last, as a contiguous copy when needed; returns A, R, B.
Tensor arrange(const Tensor& x, const std::vector<bool>& mask, int64_t& A, int64_t& R, int64_t& B) {
  int first = -1, last = -1;
  for (int d = 0; d < x.dim(); ++d)
    if (mask[d] && x.shape()[d] != 1) {
      if (first < 0) first = d;
      last = d;
    }
  bool block = true;
  for (int d = first; d >= 0 && d <= last; ++d)
    if (!mask[d] && x.shape()[d] != 1) block = false;
  A = 1, R = 1, B = 1;
  if (first < 0) {  // nothing of size > 1 is reduced
    A = x.numel();
    return dense(x);
  }
  if (block && x.is_contiguous()) {
    for (int d = 0; d < x.dim(); ++d) (d < first ? A : d <= last ? R : B) *= x.shape()[d];
    return x;
  }
  Shape shape, strides;
  for (int pass = 0; pass < 2; ++pass)
    for (int d = 0; d < x.dim(); ++d)
      if (mask[d] == (pass == 1)) {
        shape.push_back(x.shape()[d]);
        strides.push_back(x.strides()[d]);
        (pass == 0 ? A : R) *= x.shape()[d];
      }
  return contiguous_copy(x.as_strided(shape, strides, x.offset()));
}

}  // namespace

Tensor reduce(ReduceOp op, const Tensor& x, const std::vector<bool>& mask, bool keepdim) {
  Tensor out = Tensor::empty(dispatch::reduced_shape(x.shape(), mask, keepdim), dispatch::reduced_dtype(op, x.dtype()),
                             x.device());
  int64_t A, R, B;
  Tensor xc = arrange(x, mask, A, R, B);
  if (dispatch::reduce_empty_range(op, x.shape(), R, out) || out.numel() == 0) return out;
  dispatch_all(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (out.dtype() != x.dtype()) reduce_arb<T, int64_t>(op, static_cast<const T*>(xc.raw_data()), out.data<int64_t>(), A, R, B);
    else reduce_arb<T, T>(op, static_cast<const T*>(xc.raw_data()), static_cast<T*>(out.raw_data()), A, R, B);
  });
  return out;
}

Tensor arg_reduce(bool is_max, const Tensor& x, int axis, bool keepdim) {
  std::vector<bool> mask(x.dim(), false);
  mask[axis] = true;
  STRATA_CHECK(x.shape()[axis] > 0, is_max ? "argmax" : "argmin", ": cannot reduce an empty axis (shape ",
               x.shape().str(), ")");
  Tensor out = Tensor::empty(dispatch::reduced_shape(x.shape(), mask, keepdim), kInt64, x.device());
  int64_t A, R, B;
  Tensor xc = arrange(x, mask, A, R, B);
  int64_t* o = out.data<int64_t>();
  dispatch_all(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(xc.raw_data());
    parallel_for(A * B, 1024, [&](int64_t s, int64_t e) {
      for (int64_t k = s; k < e; ++k) {
        int64_t a = k / B, b = k % B;
        const T* base = p + a * R * B + b;
        int64_t best = 0;
        for (int64_t r = 1; r < R; ++r) {
          T v = base[r * B], cur = base[best * B];
          if (is_max ? (v > cur) : (v < cur)) best = r;
        }
        o[k] = best;
      }
    });
  });
  return out;
}

Tensor cumsum(const Tensor& x, int axis, bool reverse) {
  // Move the axis last, scan rows, move it back.
  Shape order;
  for (int d = 0; d < x.dim(); ++d)
    if (d != axis) order.push_back(d);
  order.push_back(axis);
  Shape shape, strides;
  for (int64_t d : order) {
    shape.push_back(x.shape()[d]);
    strides.push_back(x.strides()[d]);
  }
  Tensor moved = contiguous_copy(x.as_strided(shape, strides, x.offset()));
  int64_t R = x.dim() ? x.shape()[axis] : 1, A = R ? x.numel() / R : 0;
  dispatch_numeric(x.dtype(), "cumsum", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = static_cast<T*>(moved.raw_data());
    parallel_for(A, 64, [&](int64_t b, int64_t e) {
      for (int64_t a = b; a < e; ++a) {
        T* row = p + a * R;
        T acc = 0;
        if (reverse)
          for (int64_t r = R - 1; r >= 0; --r) row[r] = acc += row[r];
        else
          for (int64_t r = 0; r < R; ++r) row[r] = acc += row[r];
      }
    });
  });
  // Undo the permutation as a view, then make it contiguous.
  Shape back_shape = x.shape(), back_strides;
  back_strides.resize(x.dim());
  Shape ms = moved.strides();
  for (int i = 0; i < x.dim(); ++i) back_strides[order[i]] = ms[i];
  return contiguous_copy(moved.as_strided(back_shape, back_strides, 0));
}

}  // namespace strata::kernels::cpu
