// Binary element-wise ops with broadcasting: gradients are summed back to each operand's shape.
#include "ops/op_common.hpp"
#include "strata/dispatch/elementwise.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"

namespace strata {
namespace {

using dispatch::BinaryOp;
using ops::Grads;

// grad(g, a, b, y) -> {dL/da, dL/db} before reduction to the operands' shapes.
template <class GradFn>
Tensor binary_op(const char* name, BinaryOp op, const Tensor& a, const Tensor& b, GradFn grad) {
  ops::check_defined(a, name, "first operand");
  ops::check_defined(b, name, "second operand");
  Tensor y = dispatch::binary(op, a, b);
  if (autograd::needs_grad({&a, &b}))
    autograd::record(name, {a, b}, {y}, [a, b, y = autograd::saved(y), grad](const Grads& g) {
      auto [ga, gb] = grad(g[0], a, b, y);
      return Grads{a.requires_grad() ? cast(sum_to(ga, a.shape()), a.dtype()) : Tensor(),
                   b.requires_grad() ? cast(sum_to(gb, b.shape()), b.dtype()) : Tensor()};
    });
  return y;
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

STRATA_REGISTER_OPS("add", "sub", "mul", "div", "pow", "maximum", "minimum", "where", "cast");

Tensor add(const Tensor& a, const Tensor& b) {
  return binary_op("add", BinaryOp::add, a, b, [](const Tensor& g, auto&, auto&, auto&) { return std::pair{g, g}; });
}
Tensor sub(const Tensor& a, const Tensor& b) {
  return binary_op("sub", BinaryOp::sub, a, b, [](const Tensor& g, auto&, auto&, auto&) { return std::pair{g, -g}; });
}
Tensor mul(const Tensor& a, const Tensor& b) {
  return binary_op("mul", BinaryOp::mul, a, b,
                   [](const Tensor& g, const Tensor& a, const Tensor& b, auto&) { return std::pair{g * b, g * a}; });
}
Tensor div(const Tensor& a, const Tensor& b) {
  if (b.defined() && !is_floating(promote(a.dtype(), b.dtype())))
    for (int64_t v : b.to_vector<int64_t>()) STRATA_CHECK(v != 0, "div: integer division by zero");
  return binary_op("div", BinaryOp::div, a, b, [](const Tensor& g, const Tensor& a, const Tensor& b, auto&) {
    Tensor gb = g / b;
    return std::pair{gb, -gb * a / b};
  });
}
Tensor pow(const Tensor& a, const Tensor& b) {
  return binary_op("pow", BinaryOp::pow, a, b, [](const Tensor& g, const Tensor& a, const Tensor& b, const Tensor& y) {
    Tensor positive = a > 0.0;
    Tensor safe_log = log(where(positive, a, ones_like(a)));
    return std::pair{g * b * pow(a, b - 1.0), where(positive, g * y * safe_log, zeros_like(y))};
  });
}
// Ties split the gradient evenly, as PyTorch does.
Tensor maximum(const Tensor& a, const Tensor& b) {
  return binary_op("maximum", BinaryOp::maximum, a, b, [](const Tensor& g, const Tensor& a, const Tensor& b, auto&) {
    Tensor share = cast(a > b, g.dtype()) + cast(a == b, g.dtype()) * 0.5;
    return std::pair{g * share, g * (1.0 - share)};
  });
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return binary_op("minimum", BinaryOp::minimum, a, b, [](const Tensor& g, const Tensor& a, const Tensor& b, auto&) {
    Tensor share = cast(a < b, g.dtype()) + cast(a == b, g.dtype()) * 0.5;
    return std::pair{g * share, g * (1.0 - share)};
  });
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
  if (autograd::needs_grad({&a, &b}))
    autograd::record("where", {a, b}, {y}, [cond, a, b](const Grads& g) {
      Tensor zero = zeros_like(g[0]);
      return Grads{a.requires_grad() ? sum_to(dispatch::where(cond, g[0], zero), a.shape()) : Tensor(),
                   b.requires_grad() ? sum_to(dispatch::where(cond, zero, g[0]), b.shape()) : Tensor()};
    });
  return y;
}

Tensor cast(const Tensor& x, DType dtype) {
  ops::check_defined(x, "cast");
  if (x.dtype() == dtype) return x;
  Tensor y = dispatch::cast(x, dtype);
  if (is_floating(dtype) && autograd::needs_grad({&x}))
    autograd::record("cast", {x}, {y}, [from = x.dtype()](const Grads& g) { return Grads{dispatch::cast(g[0], from)}; });
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

Tensor& add_(Tensor& a, const Tensor& b, double alpha) {
  if (alpha == 1.0) dispatch::binary_inplace(BinaryOp::add, a, b);
  else dispatch::add_scaled_inplace(a, b, alpha);
  return a;
}
Tensor& sub_(Tensor& a, const Tensor& b) {
  dispatch::binary_inplace(BinaryOp::sub, a, b);
  return a;
}
Tensor& mul_(Tensor& a, const Tensor& b) {
  dispatch::binary_inplace(BinaryOp::mul, a, b);
  return a;
}
Tensor& mul_(Tensor& a, double b) { return mul_(a, scalar_like(b, a)); }
Tensor& div_(Tensor& a, const Tensor& b) {
  dispatch::binary_inplace(BinaryOp::div, a, b);
  return a;
}
Tensor& copy_(Tensor& dst, const Tensor& src) {
  dispatch::copy_into(dst, src);
  return dst;
}
Tensor& fill_(Tensor& t, double value) {
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
