// Combining and rearranging tensors. concat/split copy into or view slices; flip, roll, tile
// and reflect/replicate padding are one per-axis index map each (dispatch::take_axes).
#include "strata/ops/combine.hpp"

#include <algorithm>

#include "ops/index_maps.hpp"
#include "ops/op_common.hpp"
#include "strata/dispatch/elementwise.hpp"
#include "strata/dispatch/index.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata {
namespace {

using dispatch::AxisMaps;
using ops::Grads;
using ops::Op;

// A view of `y` with `shape`, starting `start` elements along each axis into it.
Tensor subview(const Tensor& y, const Shape& shape, const Shape& start) {
  int64_t offset = y.offset();
  for (int d = 0; d < start.size(); ++d) offset += start[d] * y.strides()[d];
  return y.as_strided(shape, y.strides(), offset);
}

Shape offset_along(int ndim, int axis, int64_t at) {
  Shape s;
  s.resize(ndim, 0);
  s[axis] = at;
  return s;
}

std::vector<int64_t> normalized_axes(const std::vector<int64_t>& axes, int ndim, const char* op) {
  std::vector<int64_t> out;
  for (int64_t a : axes) {
    int64_t d = normalize_axis(a, ndim, op);
    for (int64_t seen : out)
      STRATA_CHECK(seen != d, op, ": axis ", a, " appears twice in ", Shape(axes).str());
    out.push_back(d);
  }
  return out;
}

}  // namespace

Tensor concat(const std::vector<Tensor>& tensors, int64_t axis) {
  STRATA_CHECK(!tensors.empty(), "concat: expected at least one tensor, got none");
  for (const Tensor& t : tensors) ops::check_defined(t, "concat", "a tensor in the list");
  const Tensor& first = tensors[0];
  STRATA_CHECK(first.dim() > 0, "concat: cannot concatenate 0-dimensional tensors (use stack)");
  const int ax = normalize_axis(axis, first.dim(), "concat");
  Shape shape = first.shape();
  shape[ax] = 0;
  DType dtype = first.dtype();
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Shape& s = tensors[i].shape();
    bool fits = s.size() == first.dim();
    for (int d = 0; fits && d < s.size(); ++d) fits = d == ax || s[d] == first.shape()[d];
    STRATA_CHECK(fits, "concat: tensor ", i, " has shape ", s.str(), " but tensor 0 has shape ",
                 first.shape().str(), "; sizes must agree except along axis ", ax);
    shape[ax] += s[ax];
    dtype = promote(dtype, tensors[i].dtype());
  }
  Tensor y = Tensor::empty(shape, dtype, dispatch::common_device("concat", tensors));
  struct Part {
    int64_t size;
    DType dtype;
    bool wants_grad;
  };
  std::vector<Part> parts;
  int64_t at = 0;
  for (const Tensor& t : tensors) {
    if (t.dtype() == dtype && t.is_contiguous()) {
      dispatch::write_slab(y, ax, at, t);
    } else if (t.numel() > 0) {
      Tensor dst = subview(y, t.shape(), offset_along(y.dim(), ax, at));
      dispatch::copy_into(dst, t);
    }
    at += t.shape()[ax];
    parts.push_back({t.shape()[ax], t.dtype(), t.requires_grad()});
  }
  if (autograd::needs_grad(tensors))
    ops::record(Op::concat, tensors, {y}, [parts, ax](const Grads& g) {
      Grads out;
      int64_t at = 0;
      for (const Part& p : parts) {
        out.push_back(p.wants_grad ? cast(narrow(g[0], ax, at, p.size), p.dtype) : Tensor());
        at += p.size;
      }
      return out;
    });
  return y;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t axis) {
  STRATA_CHECK(!tensors.empty(), "stack: expected at least one tensor, got none");
  for (const Tensor& t : tensors) ops::check_defined(t, "stack", "a tensor in the list");
  for (size_t i = 1; i < tensors.size(); ++i)
    STRATA_CHECK(tensors[i].shape() == tensors[0].shape(), "stack: tensor ", i, " has shape ",
                 tensors[i].shape().str(), " but tensor 0 has shape ", tensors[0].shape().str(),
                 "; stack needs equal shapes");
  const int ax = normalize_axis(axis, tensors[0].dim() + 1, "stack");
  std::vector<Tensor> expanded;
  for (const Tensor& t : tensors) expanded.push_back(unsqueeze(t, ax));
  return concat(expanded, ax);
}

std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis) {
  ops::check_defined(x, "split");
  STRATA_CHECK(x.dim() > 0, "split: cannot split a 0-dimensional tensor");
  const int ax = normalize_axis(axis, x.dim(), "split");
  int64_t total = 0;
  for (int64_t s : sizes) {
    STRATA_CHECK(s >= 0, "split: sizes must be non-negative, got ", Shape(sizes).str());
    total += s;
  }
  STRATA_CHECK(total == x.shape()[ax], "split: sizes ", Shape(sizes).str(), " add up to ", total, ", but axis ",
               ax, " of shape ", x.shape().str(), " has ", x.shape()[ax]);
  std::vector<Tensor> pieces;
  int64_t at = 0;
  for (int64_t s : sizes) {
    Shape shape = x.shape();
    shape[ax] = s;
    pieces.push_back(subview(x, shape, offset_along(x.dim(), ax, at)));
    at += s;
  }
  if (autograd::needs_grad({&x}))
    ops::record(Op::split, {x}, pieces, [ax](const Grads& g) { return Grads{concat(g, ax)}; });
  return pieces;
}

std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t axis) {
  ops::check_defined(x, "split");
  STRATA_CHECK(split_size > 0, "split: split_size must be positive, got ", split_size);
  const int64_t n = x.size(axis);
  std::vector<int64_t> sizes;
  for (int64_t at = 0; at < n; at += split_size) sizes.push_back(std::min(split_size, n - at));
  if (sizes.empty()) sizes.push_back(0);
  return split(x, sizes, axis);
}

std::vector<Tensor> chunk(const Tensor& x, int64_t n, int64_t axis) {
  ops::check_defined(x, "chunk");
  STRATA_CHECK(n > 0, "chunk: the number of chunks must be positive, got ", n);
  const int64_t size = x.size(axis);
  return split(x, std::max<int64_t>(1, (size + n - 1) / n), axis);
}

Tensor pad(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& pads, PadMode mode, double value) {
  ops::check_defined(x, "pad");
  const int k = static_cast<int>(pads.size());
  STRATA_CHECK(k <= x.dim(), "pad: ", k, " (before, after) pairs for a tensor of shape ", x.shape().str());
  const int first = x.dim() - k;
  Shape shape = x.shape(), start;
  start.resize(x.dim(), 0);
  for (int i = 0; i < k; ++i) {
    const int d = first + i;
    const auto [before, after] = pads[i];
    const int64_t n = x.shape()[d];
    STRATA_CHECK(before >= 0 && after >= 0, "pad: pads must be non-negative, got {", before, ", ", after,
                 "} for axis ", d, " of shape ", x.shape().str());
    STRATA_CHECK(mode != PadMode::reflect || (before < n && after < n), "pad: reflect padding {", before, ", ",
                 after, "} must be smaller than the size ", n, " of axis ", d, " (shape ", x.shape().str(), ")");
    STRATA_CHECK(mode != PadMode::replicate || n > 0 || before + after == 0, "pad: replicate padding of axis ", d,
                 " needs a non-empty axis (shape ", x.shape().str(), ")");
    shape[d] += before + after;
    start[d] = before;
  }
  if (mode == PadMode::constant) {
    Tensor y = Tensor::empty(shape, x.dtype(), x.device());
    if (y.numel() > 0) dispatch::fill(y, value);
    Tensor interior = subview(y, x.shape(), start);
    if (x.numel() > 0) dispatch::copy_into(interior, x);
    if (autograd::needs_grad({&x}))
      ops::record(Op::pad, {x}, {y}, [start, xshape = x.shape()](const Grads& g) {
        Tensor gx = g[0];
        for (int d = 0; d < xshape.size(); ++d)
          if (gx.shape()[d] != xshape[d]) gx = narrow(gx, d, start[d], xshape[d]);
        return Grads{gx};
      });
    return y;
  }
  AxisMaps maps(x.dim());
  for (int i = 0; i < k; ++i) {
    const int d = first + i;
    const int64_t n = x.shape()[d];
    if (pads[i].first == 0 && pads[i].second == 0) continue;
    for (int64_t o = 0; o < shape[d]; ++o) {
      int64_t j = o - pads[i].first;
      if (mode == PadMode::reflect) j = j < 0 ? -j : (j >= n ? 2 * (n - 1) - j : j);
      else j = std::clamp<int64_t>(j, 0, n - 1);
      maps[d].push_back(j);
    }
  }
  return ops::take(Op::pad, x, shape, maps);
}

Tensor tile(const Tensor& x, const std::vector<int64_t>& reps) {
  ops::check_defined(x, "tile");
  for (int64_t r : reps) STRATA_CHECK(r >= 0, "tile: reps must be non-negative, got ", Shape(reps).str());
  Tensor xv = x;
  if (static_cast<int>(reps.size()) > x.dim()) {
    Shape s = x.shape();
    while (s.size() < static_cast<int>(reps.size())) s.insert(0, 1);
    xv = reshape(x, s);
  }
  const int nd = xv.dim();
  std::vector<int64_t> r(nd - reps.size(), 1);
  r.insert(r.end(), reps.begin(), reps.end());
  Shape shape = xv.shape();
  AxisMaps maps(nd);
  for (int d = 0; d < nd; ++d) {
    shape[d] *= r[d];
    if (r[d] != 1)
      for (int64_t i = 0; i < shape[d]; ++i) maps[d].push_back(i % xv.shape()[d]);
  }
  Tensor y = dispatch::take_axes(xv, shape, maps);
  if (autograd::needs_grad({&xv}))
    ops::record(Op::tile, {xv}, {y}, [r, xshape = xv.shape()](const Grads& g) {
      // Along each tiled axis, [reps * n] is [reps, n] row-major: sum the reps out.
      Tensor gx = g[0];
      for (int d = 0; d < xshape.size(); ++d) {
        if (r[d] == 1) continue;
        Shape s = gx.shape();
        int64_t outer = 1, inner = 1;
        for (int e = 0; e < d; ++e) outer *= s[e];
        for (int e = d + 1; e < s.size(); ++e) inner *= s[e];
        s[d] = xshape[d];
        gx = reshape(sum(reshape(gx, {outer, r[d], xshape[d] * inner}), {1}), s);
      }
      return Grads{gx};
    });
  return y;
}

Tensor flip(const Tensor& x, const std::vector<int64_t>& axes) {
  ops::check_defined(x, "flip");
  AxisMaps maps(x.dim());
  for (int64_t d : normalized_axes(axes, x.dim(), "flip")) {
    if (x.dim() == 0) continue;
    for (int64_t i = x.shape()[d] - 1; i >= 0; --i) maps[d].push_back(i);
  }
  Tensor y = dispatch::take_axes(x, x.shape(), maps);
  if (autograd::needs_grad({&x}))
    ops::record(Op::flip, {x}, {y}, [axes](const Grads& g) { return Grads{flip(g[0], axes)}; });
  return y;
}

Tensor roll(const Tensor& x, const std::vector<int64_t>& shifts, const std::vector<int64_t>& axes) {
  ops::check_defined(x, "roll");
  if (axes.empty()) {
    STRATA_CHECK(shifts.size() == 1, "roll: without axes, expected one shift, got ", shifts.size());
    return reshape(roll(reshape(x, {-1}), shifts, {0}), x.shape());
  }
  STRATA_CHECK(shifts.size() == axes.size(), "roll: ", shifts.size(), " shifts for ", axes.size(), " axes");
  std::vector<int64_t> total(std::max(x.dim(), 1), 0);
  for (size_t i = 0; i < axes.size(); ++i) total[normalize_axis(axes[i], x.dim(), "roll")] += shifts[i];
  AxisMaps maps(x.dim());
  for (int d = 0; d < x.dim(); ++d) {
    const int64_t n = x.shape()[d];
    if (n == 0) continue;
    const int64_t s = ((total[d] % n) + n) % n;
    if (s == 0) continue;
    for (int64_t i = 0; i < n; ++i) maps[d].push_back((i - s + n) % n);
  }
  Tensor y = dispatch::take_axes(x, x.shape(), maps);
  if (autograd::needs_grad({&x}))
    ops::record(Op::roll, {x}, {y}, [shifts, axes](const Grads& g) {
      std::vector<int64_t> back;
      for (int64_t s : shifts) back.push_back(-s);
      return Grads{roll(g[0], back, axes)};
    });
  return y;
}

Tensor roll(const Tensor& x, int64_t shift, int64_t axis) { return roll(x, std::vector<int64_t>{shift}, {axis}); }

}  // namespace strata
