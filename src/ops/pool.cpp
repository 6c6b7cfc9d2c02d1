// Max and average pooling, and the global pools (reductions over the spatial axes).
#include "strata/ops/pool.hpp"

#include "ops/op_common.hpp"
#include "ops/op_geometry.hpp"
#include "ops/sliding_window.hpp"
#include "strata/dispatch/pool.hpp"
#include "strata/ops/reduce.hpp"

namespace strata {
namespace {

using dispatch::PoolGeometry;
using dispatch::PoolWorkspace;
using ops::Grads;

}  // namespace

PoolGeometry ops::pool_geometry(const Tensor& x, const SpatialSizes& kernel, const PoolOptions& opt, int nsp, bool max,
                                const char* op) {
  PoolGeometry g;
  g.max = max;
  ops::read_input(g.win, x, nsp, op);
  g.channels = x.size(-1);
  g.win.kernel = ops::window_axes(kernel, nsp, 1, 1, op, "kernel");
  g.win.stride = opt.stride.empty() ? g.win.kernel : ops::window_axes(opt.stride, nsp, 1, 1, op, "stride");
  const std::string shapes = "x " + x.shape().str() + ", kernel " + Shape(kernel).str();
  ops::resolve_padding(g.win, opt.padding, op, shapes);
  for (int a = 0; a < 3; ++a)
    STRATA_CHECK(g.win.pad_before[a] < g.win.kernel[a] && g.win.pad_after[a] < g.win.kernel[a], op,
                 ": padding must be smaller than the kernel, got padding ", g.win.pad_before[a], " / ",
                 g.win.pad_after[a], " for kernel ", g.win.kernel[a], "; ", shapes);
  return g;
}

namespace {

Tensor pool_nd(ops::Op id, int nsp, bool max, const Tensor& x, const SpatialSizes& kernel, const PoolOptions& opt) {
  const PoolGeometry g = ops::pool_geometry(x, kernel, opt, nsp, max, ops::op_name(id));
  const bool grad = autograd::needs_grad({&x});
  std::shared_ptr<PoolWorkspace> workspace;
  Tensor y = dispatch::pool_forward(x, g, grad ? &workspace : nullptr);
  if (grad)
    ops::record(id, {x}, {y}, [x, g, workspace](const Grads& gr) {
      return Grads{dispatch::pool_backward(gr[0], x, g, workspace)};
    });
  return y;
}

// The spatial axes 1 .. nsp of a channels-last tensor of rank nsp + 2.
Axes spatial_axes(const Tensor& x, int nsp, const char* op) {
  ops::Window w;
  ops::read_input(w, x, nsp, op);
  Axes axes;
  for (int a = 1; a <= nsp; ++a) axes.push_back(a);
  return axes;
}

}  // namespace

Tensor max_pool1d(const Tensor& x, const SpatialSizes& k, const PoolOptions& o) {
  return pool_nd(ops::Op::max_pool1d, 1, true, x, k, o);
}
Tensor max_pool2d(const Tensor& x, const SpatialSizes& k, const PoolOptions& o) {
  return pool_nd(ops::Op::max_pool2d, 2, true, x, k, o);
}
Tensor max_pool3d(const Tensor& x, const SpatialSizes& k, const PoolOptions& o) {
  return pool_nd(ops::Op::max_pool3d, 3, true, x, k, o);
}
Tensor avg_pool1d(const Tensor& x, const SpatialSizes& k, const PoolOptions& o) {
  return pool_nd(ops::Op::avg_pool1d, 1, false, x, k, o);
}
Tensor avg_pool2d(const Tensor& x, const SpatialSizes& k, const PoolOptions& o) {
  return pool_nd(ops::Op::avg_pool2d, 2, false, x, k, o);
}
Tensor avg_pool3d(const Tensor& x, const SpatialSizes& k, const PoolOptions& o) {
  return pool_nd(ops::Op::avg_pool3d, 3, false, x, k, o);
}

Tensor global_max_pool1d(const Tensor& x) { return amax(x, spatial_axes(x, 1, "global_max_pool1d")); }
Tensor global_max_pool2d(const Tensor& x) { return amax(x, spatial_axes(x, 2, "global_max_pool2d")); }
Tensor global_max_pool3d(const Tensor& x) { return amax(x, spatial_axes(x, 3, "global_max_pool3d")); }
Tensor global_avg_pool1d(const Tensor& x) { return mean(x, spatial_axes(x, 1, "global_avg_pool1d")); }
Tensor global_avg_pool2d(const Tensor& x) { return mean(x, spatial_axes(x, 2, "global_avg_pool2d")); }
Tensor global_avg_pool3d(const Tensor& x) { return mean(x, spatial_axes(x, 3, "global_avg_pool3d")); }

}  // namespace strata
