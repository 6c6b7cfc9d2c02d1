// Views and shape changes: each computes new sizes/strides over the same storage; backward
// maps the gradient back to the input's shape.
#include <algorithm>

#include "ops/op_common.hpp"
#include "strata/dispatch/elementwise.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata {
namespace {

using ops::Grads;
using ops::Op;

// Resolves one -1 in `shape` against numel.
Shape infer_shape(const Shape& shape, int64_t numel, const char* op, const Shape& from) {
  Shape out = shape;
  int infer = -1;
  int64_t known = 1;
  for (int i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      STRATA_CHECK(infer < 0, op, ": only one size may be -1, got ", shape.str());
      infer = i;
    } else {
      STRATA_CHECK(out[i] >= 0, op, ": invalid size ", out[i], " in ", shape.str());
      known *= out[i];
    }
  }
  if (infer >= 0) {
    STRATA_CHECK(known != 0 && numel % known == 0, op, ": cannot reshape ", from.str(), " into ", shape.str());
    out[infer] = numel / known;
  }
  STRATA_CHECK(out.numel() == numel, op, ": cannot reshape ", from.str(), " (", numel, " elements) into ",
               shape.str());
  return out;
}

// Strides for viewing x as `shape` without copying, if x's strides allow it (PyTorch's rule:
// each group of old dims that merges or splits must be contiguous within itself).
bool view_strides(const Tensor& x, const Shape& shape, Shape& strides) {
  if (x.is_contiguous()) {
    strides = contiguous_strides(shape);
    return true;
  }
  const Shape& os = x.shape();
  const Shape& ost = x.strides();
  strides.resize(shape.size());
  int64_t numel = x.numel();
  if (numel == 0) {
    strides = contiguous_strides(shape);
    return true;
  }
  int view_d = shape.size() - 1;
  int64_t chunk_base_stride = ost.size() ? ost[ost.size() - 1] : 1;
  int64_t tensor_numel = 1, view_numel = 1;
  for (int d = os.size() - 1; d >= 0; --d) {
    tensor_numel *= os[d];
    if (d == 0 || (os[d - 1] != 1 && ost[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = ost[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

Tensor make_view(Op op, const Tensor& x, const Shape& shape, const Shape& strides, int64_t offset,
                 std::function<Grads(const Grads&)> backward) {
  Tensor y = x.as_strided(shape, strides, offset);
  if (autograd::needs_grad({&x})) ops::record(op, {x}, {y}, std::move(backward));
  return y;
}

// `t` with `before` and `after` zeros added along `axis`.
Tensor pad_axis(const Tensor& t, int axis, int64_t before, int64_t after) {
  std::vector<std::pair<int64_t, int64_t>> pads(t.dim() - axis, {0, 0});
  pads[0] = {before, after};
  return pad(t, pads);
}

Tensor reshape_backward(const Grads& g, const Shape& shape) { return reshape(g[0], shape); }

}  // namespace

Tensor view(const Tensor& x, const Shape& shape) {
  ops::check_defined(x, "view");
  Shape s = infer_shape(shape, x.numel(), "view", x.shape());
  Shape strides;
  STRATA_CHECK(view_strides(x, s, strides), "view: a tensor of shape ", x.shape().str(), " and strides ",
               x.strides().str(), " cannot be viewed as ", s.str(), " without a copy; use reshape");
  return make_view(Op::reshape, x, s, strides, x.offset(), [from = x.shape()](const Grads& g) {
    return Grads{reshape_backward(g, from)};
  });
}

Tensor reshape(const Tensor& x, const Shape& shape) {
  ops::check_defined(x, "reshape");
  Shape s = infer_shape(shape, x.numel(), "reshape", x.shape());
  Shape strides;
  if (view_strides(x, s, strides)) return view(x, s);
  return view(contiguous(x), s);
}

Tensor flatten(const Tensor& x, int64_t start_axis, int64_t end_axis) {
  ops::check_defined(x, "flatten");
  if (x.dim() == 0) return reshape(x, {1});
  int s = normalize_axis(start_axis, x.dim(), "flatten"), e = normalize_axis(end_axis, x.dim(), "flatten");
  STRATA_CHECK(s <= e, "flatten: start axis ", start_axis, " is after end axis ", end_axis);
  Shape shape;
  for (int d = 0; d < s; ++d) shape.push_back(x.shape()[d]);
  int64_t merged = 1;
  for (int d = s; d <= e; ++d) merged *= x.shape()[d];
  shape.push_back(merged);
  for (int d = e + 1; d < x.dim(); ++d) shape.push_back(x.shape()[d]);
  return reshape(x, shape);
}

Tensor permute(const Tensor& x, const Shape& order) {
  ops::check_defined(x, "permute");
  STRATA_CHECK(order.size() == x.dim(), "permute: order ", order.str(), " has ", order.size(),
               " axes but the tensor has ", x.dim(), " (shape ", x.shape().str(), ")");
  Shape shape, strides, inverse;
  inverse.resize(x.dim(), -1);
  for (int i = 0; i < x.dim(); ++i) {
    int a = normalize_axis(order[i], x.dim(), "permute");
    STRATA_CHECK(inverse[a] == -1, "permute: axis ", a, " appears twice in ", order.str());
    inverse[a] = i;
    shape.push_back(x.shape()[a]);
    strides.push_back(x.strides()[a]);
  }
  return make_view(Op::permute, x, shape, strides, x.offset(),
                   [inverse](const Grads& g) { return Grads{permute(g[0], inverse)}; });
}

Tensor transpose(const Tensor& x, int64_t a, int64_t b) {
  ops::check_defined(x, "transpose");
  Shape order;
  for (int i = 0; i < x.dim(); ++i) order.push_back(i);
  int ia = normalize_axis(a, x.dim(), "transpose"), ib = normalize_axis(b, x.dim(), "transpose");
  std::swap(order[ia], order[ib]);
  return permute(x, order);
}

Tensor squeeze(const Tensor& x, int64_t axis) {
  ops::check_defined(x, "squeeze");
  int a = normalize_axis(axis, x.dim(), "squeeze");
  STRATA_CHECK(x.shape()[a] == 1, "squeeze: axis ", axis, " has size ", x.shape()[a], ", not 1 (shape ",
               x.shape().str(), ")");
  Shape shape = x.shape(), strides = x.strides();
  shape.erase(a);
  strides.erase(a);
  return make_view(Op::squeeze, x, shape, strides, x.offset(),
                   [from = x.shape()](const Grads& g) { return Grads{reshape(g[0], from)}; });
}

Tensor squeeze(const Tensor& x) {
  ops::check_defined(x, "squeeze");
  Shape shape;
  for (int64_t d : x.shape())
    if (d != 1) shape.push_back(d);
  return reshape(x, shape);
}

Tensor unsqueeze(const Tensor& x, int64_t axis) {
  ops::check_defined(x, "unsqueeze");
  int a = normalize_axis(axis, x.dim() + 1, "unsqueeze");
  Shape shape = x.shape(), strides = x.strides();
  int64_t stride = a < x.dim() ? x.strides()[a] * x.shape()[a] : 1;
  shape.insert(a, 1);
  strides.insert(a, stride);
  return make_view(Op::unsqueeze, x, shape, strides, x.offset(),
                   [from = x.shape()](const Grads& g) { return Grads{reshape(g[0], from)}; });
}

// The gradient of slice(axis, start, .., step): g's entries at start, start + step, ... of zeros
// with n entries along the axis, built from differentiable ops (pad) so it has a gradient too.
static Tensor unslice(const Tensor& g, int axis, int64_t start, int64_t step, int64_t n) {
  Tensor spread = g;
  if (step > 1) {
    // Each entry followed by step - 1 zeros: [.., m, 1, ..] padded to [.., m, step, ..], merged.
    Shape merged = g.shape();
    merged[axis] *= step;
    spread = reshape(pad_axis(unsqueeze(g, axis + 1), axis + 1, 0, step - 1), merged);
    spread = narrow(spread, axis, 0, std::min(merged[axis], n - start));
  }
  return pad_axis(spread, axis, start, n - start - spread.shape()[axis]);
}

Tensor slice(const Tensor& x, int64_t axis, int64_t start, int64_t end, int64_t step) {
  ops::check_defined(x, "slice");
  int a = normalize_axis(axis, x.dim(), "slice");
  STRATA_CHECK(step > 0, "slice: step must be positive, got ", step);
  int64_t n = x.shape()[a];
  if (start < 0) start += n;
  if (end < 0) end += n;
  start = std::clamp<int64_t>(start, 0, n);
  end = std::clamp<int64_t>(end, start, n);
  Shape shape = x.shape(), strides = x.strides();
  shape[a] = (end - start + step - 1) / step;
  strides[a] *= step;
  return make_view(Op::slice, x, shape, strides, x.offset() + start * x.strides()[a],
                   [a, start, step, n](const Grads& g) { return Grads{unslice(g[0], a, start, step, n)}; });
}

Tensor narrow(const Tensor& x, int64_t axis, int64_t start, int64_t length) {
  ops::check_defined(x, "narrow");
  int a = normalize_axis(axis, x.dim(), "narrow");
  int64_t n = x.shape()[a];
  if (start < 0) start += n;
  STRATA_CHECK(start >= 0 && length >= 0 && start + length <= n, "narrow: [", start, ", ", start + length,
               ") is out of range for axis ", axis, " of size ", n);
  return slice(x, a, start, start + length);
}

Tensor select(const Tensor& x, int64_t axis, int64_t index) {
  ops::check_defined(x, "select");
  int a = normalize_axis(axis, x.dim(), "select");
  int64_t n = x.shape()[a];
  STRATA_CHECK(index >= -n && index < n, "select: index ", index, " is out of range for axis ", axis,
               " of size ", n, " (shape ", x.shape().str(), ")");
  if (index < 0) index += n;
  Shape shape = x.shape(), strides = x.strides();
  shape.erase(a);
  strides.erase(a);
  return make_view(Op::select, x, shape, strides, x.offset() + index * x.strides()[a], [a, index, n](const Grads& g) {
    return Grads{pad_axis(unsqueeze(g[0], a), a, index, n - index - 1)};
  });
}

Tensor expand(const Tensor& x, const Shape& shape) {
  ops::check_defined(x, "expand");
  STRATA_CHECK(shape.size() >= x.dim(), "expand: cannot expand shape ", x.shape().str(), " to fewer axes ",
               shape.str());
  Shape out, strides;
  int off = shape.size() - x.dim();
  for (int d = 0; d < shape.size(); ++d) {
    int xd = d - off;
    int64_t want = shape[d];
    if (xd < 0) {
      STRATA_CHECK(want >= 0, "expand: size -1 is not allowed for a new axis in ", shape.str());
      out.push_back(want);
      strides.push_back(0);
      continue;
    }
    int64_t have = x.shape()[xd];
    if (want == -1) want = have;
    STRATA_CHECK(have == want || have == 1, "expand: axis ", xd, " of shape ", x.shape().str(),
                 " has size ", have, " and cannot become ", want);
    out.push_back(want);
    strides.push_back(have == want ? x.strides()[xd] : 0);
  }
  if (out == x.shape()) return x;
  return make_view(Op::expand, x, out, strides, x.offset(),
                   [from = x.shape()](const Grads& g) { return Grads{sum_to(g[0], from)}; });
}

Tensor broadcast_to(const Tensor& x, const Shape& shape) { return expand(x, shape); }

Tensor clone(const Tensor& x) {
  ops::check_defined(x, "clone");
  Tensor y = dispatch::contiguous_copy(x);
  if (autograd::needs_grad({&x})) ops::record(Op::clone, {x}, {y}, [](const Grads& g) { return Grads{g[0]}; });
  return y;
}

Tensor contiguous(const Tensor& x) {
  ops::check_defined(x, "contiguous");
  if (x.is_contiguous()) return x;
  Tensor y = dispatch::contiguous_copy(x);
  if (autograd::needs_grad({&x}))
    ops::record(Op::contiguous, {x}, {y}, [](const Grads& g) { return Grads{g[0]}; });
  return y;
}

}  // namespace strata
