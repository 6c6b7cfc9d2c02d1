// Binary element-wise ops with broadcasting: gradients are summed back to each operand's shape.
#include "ops/op_common.hpp"
#include "strata/core/device_copy.hpp"
#include "strata/dispatch/elementwise.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"

namespace strata {
namespace {

using dispatch::BinaryOp;
using ops::Grads;
using ops::Op;
using In = const Tensor&;

// One operand's gradient: dL/d(operand) from the output gradient g and the operands a, b
// (before reduction to the operand's shape). `reads` says which operands it reads; the node
// keeps only those, and only for operands that want a gradient.
enum Reads : unsigned { none = 0, reads_a = 1, reads_b = 2 };
struct Partial {
  unsigned reads;
  Tensor (*fn)(In g, In a, In b);
};

// What backward needs of an operand whose value it does not read.
struct Operand {
  Shape shape;
  DType dtype;
  bool wants_grad;
  Tensor to_operand(const Tensor& grad) const { return wants_grad ? cast(sum_to(grad, shape), dtype) : Tensor(); }
};

Tensor binary_op(Op op, BinaryOp kernel, const Tensor& a, const Tensor& b, Partial da, Partial db) {
  const char* name = ops::op_name(op);
  ops::check_defined(a, name, "first operand");
  ops::check_defined(b, name, "second operand");
  Tensor y = dispatch::binary(kernel, a, b);
  if (autograd::needs_grad({&a, &b})) {
    const Operand oa{a.shape(), a.dtype(), a.requires_grad()}, ob{b.shape(), b.dtype(), b.requires_grad()};
    const unsigned reads = (oa.wants_grad ? da.reads : 0) | (ob.wants_grad ? db.reads : 0);
    ops::record(op, {a, b}, {y},
                [oa, ob, da, db, a = reads & reads_a ? a : Tensor(),
                 b = reads & reads_b ? b : Tensor()](const Grads& g) {
                  return Grads{oa.wants_grad ? oa.to_operand(da.fn(g[0], a, b)) : Tensor(),
                               ob.wants_grad ? ob.to_operand(db.fn(g[0], a, b)) : Tensor()};
                });
  }
  return y;
}

// maximum / minimum: the share of the gradient that goes to a; ties split it evenly, as PyTorch does.
Tensor share_of_a(In a, In b, bool max) {
  DType dt = promote(a.dtype(), b.dtype());
  return cast(max ? a > b : a < b, dt) + cast(a == b, dt) * 0.5;
}

Tensor compare(BinaryOp op, const Tensor& a, const Tensor& b) {
  ops::check_defined(a, dispatch::binary_name(op), "first operand");
  ops::check_defined(b, dispatch::binary_name(op), "second operand");
  return dispatch::binary(op, a, b);
}

// A scalar operand takes the tensor's dtype, unless a fraction meets an integer tensor.
Tensor scalar_like(double v, const Tensor& t) {
  DType dt = t.dtype();
  if (!is_floating(dt) && v != static_cast<double>(static_cast<int64_t>(v))) dt = kFloat32;
  if (dt == kBool) dt = kInt64;
  return scalar_tensor(v, {dt, t.device()});
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) {
  return binary_op(Op::add, BinaryOp::add, a, b, {none, [](In g, In, In) { return g; }},
                   {none, [](In g, In, In) { return g; }});
}
Tensor sub(const Tensor& a, const Tensor& b) {
  return binary_op(Op::sub, BinaryOp::sub, a, b, {none, [](In g, In, In) { return g; }},
                   {none, [](In g, In, In) { return -g; }});
}
Tensor mul(const Tensor& a, const Tensor& b) {
  return binary_op(Op::mul, BinaryOp::mul, a, b, {reads_b, [](In g, In, In b) { return g * b; }},
                   {reads_a, [](In g, In a, In) { return g * a; }});
}
Tensor div(const Tensor& a, const Tensor& b) {
  if (b.defined() && !is_floating(promote(a.dtype(), b.dtype())))
    for (int64_t v : b.to_vector<int64_t>()) STRATA_CHECK(v != 0, "div: integer division by zero");
  return binary_op(Op::div, BinaryOp::div, a, b, {reads_b, [](In g, In, In b) { return g / b; }},
                   {reads_a | reads_b, [](In g, In a, In b) { return -g * a / (b * b); }});
}
Tensor pow(const Tensor& a, const Tensor& b) {
  return binary_op(Op::pow, BinaryOp::pow, a, b,
                   {reads_a | reads_b, [](In g, In a, In b) { return g * b * pow(a, b - 1.0); }},
                   {reads_a | reads_b, [](In g, In a, In b) {
                      // d/db a^b = a^b log a, taken as 0 where a <= 0 (log undefined).
                      Tensor positive = a > 0.0;
                      Tensor safe_log = log(where(positive, a, ones_like(a)));
                      return where(positive, g * pow(a, b) * safe_log, zeros_like(g));
                    }});
}
Tensor maximum(const Tensor& a, const Tensor& b) {
  return binary_op(Op::maximum, BinaryOp::maximum, a, b,
                   {reads_a | reads_b, [](In g, In a, In b) { return g * share_of_a(a, b, true); }},
                   {reads_a | reads_b, [](In g, In a, In b) { return g * (1.0 - share_of_a(a, b, true)); }});
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return binary_op(Op::minimum, BinaryOp::minimum, a, b,
                   {reads_a | reads_b, [](In g, In a, In b) { return g * share_of_a(a, b, false); }},
                   {reads_a | reads_b, [](In g, In a, In b) { return g * (1.0 - share_of_a(a, b, false)); }});
}

Tensor eq(const Tensor& a, const Tensor& b) { return compare(BinaryOp::eq, a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return compare(BinaryOp::ne, a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return compare(BinaryOp::lt, a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return compare(BinaryOp::le, a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return compare(BinaryOp::gt, a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return compare(BinaryOp::ge, a, b); }
Tensor logical_and(const Tensor& a, const Tensor& b) { return compare(BinaryOp::logical_and, a, b); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return compare(BinaryOp::logical_or, a, b); }

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  ops::check_defined(cond, "where", "condition");
  ops::check_defined(a, "where", "first operand");
  ops::check_defined(b, "where", "second operand");
  Tensor y = dispatch::where(cond, a, b);
  if (autograd::needs_grad({&a, &b})) {
    const Operand oa{a.shape(), a.dtype(), a.requires_grad()}, ob{b.shape(), b.dtype(), b.requires_grad()};
    ops::record(Op::where, {a, b}, {y}, [cond, oa, ob](const Grads& g) {
      Tensor zero = zeros_like(g[0]);
      return Grads{oa.wants_grad ? sum_to(where(cond, g[0], zero), oa.shape) : Tensor(),
                   ob.wants_grad ? sum_to(where(cond, zero, g[0]), ob.shape) : Tensor()};
    });
  }
  return y;
}

Tensor cast(const Tensor& x, DType dtype) {
  ops::check_defined(x, "cast");
  if (x.dtype() == dtype) return x;
  Tensor y = dispatch::cast(x, dtype);
  if (is_floating(dtype) && autograd::needs_grad({&x}))
    ops::record(Op::cast, {x}, {y}, [from = x.dtype()](const Grads& g) { return Grads{cast(g[0], from)}; });
  return y;
}

Tensor operator-(const Tensor& x) { return neg(x); }
Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, double b) { return add(a, scalar_like(b, a)); }
Tensor operator-(const Tensor& a, double b) { return sub(a, scalar_like(b, a)); }
Tensor operator*(const Tensor& a, double b) { return mul(a, scalar_like(b, a)); }
Tensor operator/(const Tensor& a, double b) { return div(a, scalar_like(b, a)); }
Tensor operator+(double a, const Tensor& b) { return add(scalar_like(a, b), b); }
Tensor operator-(double a, const Tensor& b) { return sub(scalar_like(a, b), b); }
Tensor operator*(double a, const Tensor& b) { return mul(scalar_like(a, b), b); }
Tensor operator/(double a, const Tensor& b) { return div(scalar_like(a, b), b); }
Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator>(const Tensor& a, double b) { return gt(a, scalar_like(b, a)); }
Tensor operator<(const Tensor& a, double b) { return lt(a, scalar_like(b, a)); }

namespace {

// What PyTorch refuses of an in-place write, for the same reason: a written-to view with a stride
// of 0 (expand, broadcast_to) has elements that are one memory location, and a source that
// shares memory with the destination in part (not as the very same view) is read while it is
// overwritten, in an order no kernel promises (threads on a GPU run in any order).
void check_writable(const Tensor& dst, const Tensor* src, const char* op) {
  if (!dst.defined() || dst.numel() == 0) return;
  for (int d = 0; d < dst.dim(); ++d)
    STRATA_CHECK(dst.strides()[d] != 0 || dst.shape()[d] == 1, op,
                 ": the written-to tensor is an expanded view (stride 0 on axis ", d, " of shape ", dst.shape().str(),
                 "): more than one of its elements is one memory location; write into a clone() of it");
  if (!src || !src->defined() || src->numel() == 0 || src->impl()->storage != dst.impl()->storage) return;
  const bool same_view = src->offset() == dst.offset() && src->shape() == dst.shape() &&
                         src->strides() == dst.strides() && src->dtype() == dst.dtype();
  if (same_view) return;
  const auto [d_first, d_last] = reached_elements(dst);
  const auto [s_first, s_last] = reached_elements(*src);
  const int64_t d_size = static_cast<int64_t>(itemsize(dst.dtype())), s_size = static_cast<int64_t>(itemsize(src->dtype()));
  const bool apart = (d_last + 1) * d_size <= s_first * s_size || (s_last + 1) * s_size <= d_first * d_size;
  STRATA_CHECK(apart, op, ": the source and the written-to tensor share memory in part (views of one storage that "
               "are not the same view); pass a clone() of the source");
}

}  // namespace

Tensor& add_(Tensor& a, const Tensor& b, double alpha) {
  check_writable(a, &b, "add_");
  if (alpha == 1.0) dispatch::binary_inplace(BinaryOp::add, a, b);
  else dispatch::add_scaled_inplace(a, b, alpha);
  return a;
}
Tensor& sub_(Tensor& a, const Tensor& b) {
  check_writable(a, &b, "sub_");
  dispatch::binary_inplace(BinaryOp::sub, a, b);
  return a;
}
Tensor& mul_(Tensor& a, const Tensor& b) {
  check_writable(a, &b, "mul_");
  dispatch::binary_inplace(BinaryOp::mul, a, b);
  return a;
}
Tensor& mul_(Tensor& a, double b) { return mul_(a, scalar_like(b, a)); }
Tensor& div_(Tensor& a, const Tensor& b) {
  check_writable(a, &b, "div_");
  dispatch::binary_inplace(BinaryOp::div, a, b);
  return a;
}
Tensor& copy_(Tensor& dst, const Tensor& src) {
  check_writable(dst, &src, "copy_");
  dispatch::copy_into(dst, src);
  return dst;
}
Tensor& fill_(Tensor& t, double value) {
  check_writable(t, nullptr, "fill_");
  dispatch::fill(t, value);
  return t;
}
Tensor& zero_(Tensor& t) { return fill_(t, 0); }

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol) {
  STRATA_CHECK(a.shape() == b.shape(), "allclose: shapes ", a.shape().str(), " and ", b.shape().str(), " differ");
  auto va = a.to_vector<double>(), vb = b.to_vector<double>();
  for (size_t i = 0; i < va.size(); ++i)
    if (!(std::abs(va[i] - vb[i]) <= atol + rtol * std::abs(vb[i]))) return false;
  return true;
}

}  // namespace strata
