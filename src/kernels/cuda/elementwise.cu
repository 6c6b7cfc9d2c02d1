// The element-wise maps: unary, broadcasting binary, in-place updates and `where`. One thread per
// output element, reading its inputs through flat Indexers (merged axes; contiguous operands read
// at the thread's own position, 32-bit index arithmetic where the sizes allow). The op is a kernel argument
// rather than a template parameter: every thread of a launch takes the same switch case
// (unary_switch of dispatch/unary_formulas.hpp, unary_math.hpp), which costs a jump per element
// against a memory-bound loop, and keeps the kernels to one per dtype instead of one per op and
// dtype.
#include "kernels/cuda/elementwise.hpp"
#include "kernels/cuda/indexer.hpp"
#include "kernels/cuda/unary_math.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

using dispatch::BinaryOp;
using dispatch::UnaryOp;

namespace detail {

// Outputs are made here with empty(), so out[i] is the i-th element in row-major order. R is the
// result's element type: T, or bool for the logical ops.
template <class R, class T>
void unary_typed(UnaryOp op, Tensor& out, const Tensor& x, T a, T b) {
  R* o = out.data<R>();
  const T* in = x.data<T>();
  const Indexer at = flat_indexer(x, x.shape());
  for_each_index(out.numel(), dispatch::unary_name(op), [=] STRATA_HD(int64_t i) {
    o[i] = dispatch::unary_switch<R, dispatch::StdMath>(op, in[at(i)], a, b);
  });
}

template <class T>
void binary_typed(BinaryOp op, Tensor& out, const Tensor& a, const Tensor& b) {
  T* o = out.data<T>();
  const T *pa = a.data<T>(), *pb = b.data<T>();
  const Indexer ia = flat_indexer(a, out.shape()), ib = flat_indexer(b, out.shape());
  for_each_index(out.numel(), dispatch::binary_name(op),
                 [=] STRATA_HD(int64_t i) { o[i] = binary_value(op, pa[ia(i)], pb[ib(i)]); });
}

template <class T>
void compare_typed(BinaryOp op, Tensor& out, const Tensor& a, const Tensor& b) {
  bool* o = out.data<bool>();
  const T *pa = a.data<T>(), *pb = b.data<T>();
  const Indexer ia = flat_indexer(a, out.shape()), ib = flat_indexer(b, out.shape());
  for_each_index(out.numel(), dispatch::binary_name(op),
                 [=] STRATA_HD(int64_t i) { o[i] = compare_value(op, pa[ia(i)], pb[ib(i)]); });
}

// a may be a view: each thread writes the element it reads.
template <class T>
void inplace_typed(BinaryOp op, Tensor& a, const Tensor& b) {
  T* pa = a.data<T>();
  const T* pb = b.data<T>();
  const Indexer to = flat_indexer(a, a.shape()), from = flat_indexer(b, a.shape());
  for_each_index(a.numel(), dispatch::binary_name(op), [=] STRATA_HD(int64_t i) {
    T& x = pa[to(i)];
    x = binary_value(op, x, pb[from(i)]);
  });
}

template <class T>
void add_scaled_typed(Tensor& a, const Tensor& b, T alpha) {
  T* pa = a.data<T>();
  const T* pb = b.data<T>();
  const Indexer to = flat_indexer(a, a.shape()), from = flat_indexer(b, a.shape());
  for_each_index(a.numel(), "add_scaled_inplace", [=] STRATA_HD(int64_t i) {
    T& x = pa[to(i)];
    x = T(x + alpha * pb[from(i)]);
  });
}

template <class T>
void where_typed(Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  T* o = out.data<T>();
  const bool* pc = cond.data<bool>();
  const T *pa = a.data<T>(), *pb = b.data<T>();
  const Indexer ic = flat_indexer(cond, out.shape()), ia = flat_indexer(a, out.shape()),
                ib = flat_indexer(b, out.shape());
  for_each_index(out.numel(), "where", [=] STRATA_HD(int64_t i) { o[i] = pc[ic(i)] ? pa[ia(i)] : pb[ib(i)]; });
}

}  // namespace detail

Tensor unary(UnaryOp op, const Tensor& x, double a, double b) {
  dispatch::check_unary(op, x.dtype());
  Tensor out = Tensor::empty(x.shape(), dispatch::unary_result_dtype(op, x.dtype()), x.device());
  dispatch_all(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T ca = dispatch::convert_element<T>(a), cb = dispatch::convert_element<T>(b);
    if (out.dtype() == kBool) detail::unary_typed<bool>(op, out, x, ca, cb);
    else detail::unary_typed<T>(op, out, x, ca, cb);
  });
  return out;
}

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  const DType common = promote(a.dtype(), b.dtype());
  const Tensor ca = a.dtype() == common ? a : cast(a, common);
  const Tensor cb = b.dtype() == common ? b : cast(b, common);
  const Shape shape =
      a.shape() == b.shape() ? a.shape() : broadcast_shapes(a.shape(), b.shape(), dispatch::binary_name(op));
  if (dispatch::is_comparison(op)) {
    Tensor out = Tensor::empty(shape, kBool, a.device());
    dispatch_all(common, [&](auto tag) { detail::compare_typed<typename decltype(tag)::type>(op, out, ca, cb); });
    return out;
  }
  Tensor out = Tensor::empty(shape, common, a.device());
  dispatch_numeric(common, dispatch::binary_name(op),
                   [&](auto tag) { detail::binary_typed<typename decltype(tag)::type>(op, out, ca, cb); });
  return out;
}

void binary_inplace(BinaryOp op, Tensor& a, const Tensor& b) {
  dispatch::check_inplace(op, a.shape(), b.shape());
  const Tensor cb = b.dtype() == a.dtype() ? b : cast(b, a.dtype());
  dispatch_numeric(a.dtype(), dispatch::binary_name(op),
                   [&](auto tag) { detail::inplace_typed<typename decltype(tag)::type>(op, a, cb); });
}

void add_scaled_inplace(Tensor& a, const Tensor& b, double alpha) {
  dispatch::check_inplace(BinaryOp::add, a.shape(), b.shape());
  const Tensor cb = b.dtype() == a.dtype() ? b : cast(b, a.dtype());
  dispatch_numeric(a.dtype(), "add_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::add_scaled_typed<T>(a, cb, static_cast<T>(alpha));
  });
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  const DType common = promote(a.dtype(), b.dtype());
  const Tensor ca = a.dtype() == common ? a : cast(a, common);
  const Tensor cb = b.dtype() == common ? b : cast(b, common);
  const Tensor cc = cond.dtype() == kBool ? cond : cast(cond, kBool);
  const Shape shape = broadcast_shapes(broadcast_shapes(cc.shape(), a.shape(), "where"), b.shape(), "where");
  Tensor out = Tensor::empty(shape, common, a.device());
  dispatch_all(common, [&](auto tag) { detail::where_typed<typename decltype(tag)::type>(out, cc, ca, cb); });
  return out;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
