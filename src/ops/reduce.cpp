// Reductions: gradients broadcast the output gradient back over the reduced axes.
#include "strata/ops/reduce.hpp"

#include <cmath>

#include "ops/op_common.hpp"
#include "strata/dispatch/reduce.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/shape.hpp"

namespace strata {
namespace ops {
std::vector<bool> axes_mask(const std::vector<int64_t>& axes, int ndim, const char* op) {
  std::vector<bool> mask(ndim, axes.empty());
  for (int64_t a : axes) mask[normalize_axis(a, ndim, op)] = true;
  return mask;
}
}  // namespace ops

namespace {

using dispatch::ReduceOp;
using ops::Grads;
using ops::Op;

// g (the reduced shape) back to x's shape: reinsert reduced axes as size 1, then expand.
Tensor expand_back(const Tensor& g, const Shape& x_shape, const std::vector<bool>& mask, bool keepdim) {
  Shape kept;
  for (int d = 0; d < x_shape.size(); ++d) kept.push_back(mask[d] ? 1 : x_shape[d]);
  Tensor gk = keepdim ? g : reshape(g, kept);
  return expand(gk, x_shape);
}

// cumsum's gradient: the cumulative sum from the end, whose own gradient is cumsum again.
Tensor reverse_cumsum(const Tensor& g, int axis) {
  Tensor r = dispatch::cumsum(g, axis, true);
  if (autograd::needs_grad({&g}))
    ops::record_backward(Op::cumsum, {g}, {r}, [axis](const Grads& gg) { return Grads{cumsum(gg[0], axis)}; });
  return r;
}

int64_t reduced_count(const Shape& s, const std::vector<bool>& mask) {
  int64_t n = 1;
  for (int d = 0; d < s.size(); ++d)
    if (mask[d]) n *= s[d];
  return n;
}

}  // namespace

Tensor sum(const Tensor& x, const Axes& axes, bool keepdim) {
  ops::check_defined(x, "sum");
  auto mask = ops::axes_mask(axes, x.dim(), "sum");
  Tensor y = dispatch::reduce(ReduceOp::sum, x, mask, keepdim);
  if (autograd::needs_grad({&x}))
    ops::record(Op::sum, {x}, {y}, [shape = x.shape(), mask, keepdim](const Grads& g) {
      return Grads{expand_back(g[0], shape, mask, keepdim)};
    });
  return y;
}

Tensor mean(const Tensor& x, const Axes& axes, bool keepdim) {
  ops::check_defined(x, "mean");
  ops::check_floating(x, "mean");
  auto mask = ops::axes_mask(axes, x.dim(), "mean");
  int64_t n = reduced_count(x.shape(), mask);
  Tensor y = dispatch::reduce(ReduceOp::sum, x, mask, keepdim);
  {
    NoGradGuard no_grad;
    y = y * (1.0 / static_cast<double>(n));
  }
  if (autograd::needs_grad({&x}))
    ops::record(Op::mean, {x}, {y}, [shape = x.shape(), mask, keepdim, n](const Grads& g) {
      return Grads{expand_back(g[0] * (1.0 / static_cast<double>(n)), shape, mask, keepdim)};
    });
  return y;
}

Tensor prod(const Tensor& x, const Axes& axes, bool keepdim) {
  ops::check_defined(x, "prod");
  auto mask = ops::axes_mask(axes, x.dim(), "prod");
  Tensor y = dispatch::reduce(ReduceOp::prod, x, mask, keepdim);
  if (autograd::needs_grad({&x}))
    ops::record(Op::prod, {x}, {y}, [x, mask, keepdim](const Grads& g, const Grads& out) {
      const Tensor& y = out[0];
      // y / x away from zeros; where x == 0 the product of the others (non-zero only when this
      // is the group's single zero).
      std::vector<int64_t> axes;
      for (int d = 0; d < x.dim(); ++d)
        if (mask[d]) axes.push_back(d);
      Tensor is_zero = x == zeros_like(x);
      Tensor zeros_in_group = sum(cast(is_zero, x.dtype()), axes, true);
      Tensor others = prod(where(is_zero, ones_like(x), x), axes, true);
      Tensor y_full = expand_back(y, x.shape(), mask, keepdim);
      Tensor at_zero =
          where(expand(zeros_in_group, x.shape()) == ones_like(x), expand(others, x.shape()), zeros_like(x));
      Tensor away = y_full / where(is_zero, ones_like(x), x);
      return Grads{expand_back(g[0], x.shape(), mask, keepdim) * where(is_zero, at_zero, away)};
    });
  return y;
}

static Tensor extremum(Op op, ReduceOp kernel, const Tensor& x, const Axes& axes, bool keepdim) {
  const char* name = ops::op_name(op);
  ops::check_defined(x, name);
  auto mask = ops::axes_mask(axes, x.dim(), name);
  Tensor y = dispatch::reduce(kernel, x, mask, keepdim);
  if (autograd::needs_grad({&x}))
    ops::record(op, {x}, {y}, [x, mask, keepdim](const Grads& g, const Grads& out) {
      const Tensor& y = out[0];
      std::vector<int64_t> axes;
      for (int d = 0; d < x.dim(); ++d)
        if (mask[d]) axes.push_back(d);
      Tensor hit = cast(x == expand_back(y, x.shape(), mask, keepdim), x.dtype());
      Tensor ties = sum(hit, axes, true);
      return Grads{expand_back(g[0], x.shape(), mask, keepdim) * hit / ties};
    });
  return y;
}

Tensor amax(const Tensor& x, const Axes& axes, bool keepdim) {
  return extremum(Op::amax, ReduceOp::max, x, axes, keepdim);
}
Tensor amin(const Tensor& x, const Axes& axes, bool keepdim) {
  return extremum(Op::amin, ReduceOp::min, x, axes, keepdim);
}

Tensor argmax(const Tensor& x, int64_t axis, bool keepdim) {
  ops::check_defined(x, "argmax");
  return dispatch::arg_reduce(true, x, normalize_axis(axis, x.dim(), "argmax"), keepdim);
}
Tensor argmin(const Tensor& x, int64_t axis, bool keepdim) {
  ops::check_defined(x, "argmin");
  return dispatch::arg_reduce(false, x, normalize_axis(axis, x.dim(), "argmin"), keepdim);
}

Tensor var(const Tensor& x, const Axes& axes, int64_t correction, bool keepdim) {
  ops::check_defined(x, "var");
  ops::check_floating(x, "var");
  auto mask = ops::axes_mask(axes, x.dim(), "var");
  int64_t n = reduced_count(x.shape(), mask);
  STRATA_CHECK(n - correction > 0, "var: ", n, " elements are too few for correction ", correction);
  Tensor centred = x - mean(x, axes, true);
  return sum(square(centred), axes, keepdim) * (1.0 / static_cast<double>(n - correction));
}

Tensor std(const Tensor& x, const Axes& axes, int64_t correction, bool keepdim) {
  return sqrt(var(x, axes, correction, keepdim));
}

Tensor norm(const Tensor& x, double p, const Axes& axes, bool keepdim) {
  ops::check_defined(x, "norm");
  STRATA_CHECK(p > 0, "norm: p must be positive, got ", p);
  if (p == 2) return sqrt(sum(square(x), axes, keepdim));
  if (p == 1) return sum(abs(x), axes, keepdim);
  return pow(sum(pow(abs(x), p), axes, keepdim), 1.0 / p);
}

Tensor logsumexp(const Tensor& x, const Axes& axes, bool keepdim) {
  ops::check_defined(x, "logsumexp");
  Tensor m = amax(x, axes, true).detach();  // a constant shift: the gradient is softmax either way
  Tensor m_finite = where(m == m, m, zeros_like(m));
  Tensor lse = log(sum(exp(x - m_finite), axes, true)) + m_finite;
  if (keepdim) return lse;
  auto mask = ops::axes_mask(axes, x.dim(), "logsumexp");
  Shape out;
  for (int d = 0; d < x.dim(); ++d)
    if (!mask[d]) out.push_back(x.shape()[d]);
  return reshape(lse, out);
}

Tensor cumsum(const Tensor& x, int64_t axis) {
  ops::check_defined(x, "cumsum");
  int a = normalize_axis(axis, x.dim(), "cumsum");
  Tensor y = dispatch::cumsum(x, a, false);
  if (autograd::needs_grad({&x}))
    ops::record(Op::cumsum, {x}, {y}, [a](const Grads& g) { return Grads{reverse_cumsum(g[0], a)}; });
  return y;
}

Tensor sum_to(const Tensor& g, const Shape& shape) {
  if (g.shape() == shape) return g;
  std::vector<int64_t> axes;
  int lead = g.dim() - shape.size();
  STRATA_CHECK(lead >= 0, "sum_to: cannot reduce shape ", g.shape().str(), " to ", shape.str());
  for (int d = 0; d < g.dim(); ++d)
    if (d < lead || (shape[d - lead] == 1 && g.shape()[d] != 1)) axes.push_back(d);
  Tensor s = axes.empty() ? g : sum(g, axes, true);
  return reshape(s, shape);
}

}  // namespace strata
