// Convolutions and transposed convolutions. A transposed convolution is the backward-data pass
// of the convolution with the same weights, so both directions share the three kernels of
// strata/dispatch/conv.hpp, with the roles of forward and backward-data swapped.
#include "strata/ops/conv.hpp"

#include <array>
#include <optional>
#include <tuple>
#include <vector>

#include "ops/op_common.hpp"
#include "ops/op_geometry.hpp"
#include "ops/sliding_window.hpp"
#include "strata/core/autocast.hpp"
#include "strata/core/autocast_copies.hpp"
#include "strata/dispatch/conv.hpp"
#include "strata/dispatch/elementwise.hpp"
#include "strata/ops/reduce.hpp"

namespace strata {
namespace {

using dispatch::ConvGeometry;
using ops::Grads;
using ops::Op;

std::string shapes_of(const Tensor& x, const Tensor& w) {
  return "x " + x.shape().str() + ", w " + w.shape().str();
}

// Checks x, w (rank nsp + 2, x's dtype) and b's dtype; fills g's window (all but the padding
// and output size) from x, w and the options.
void read_weights(ConvGeometry& g, const Tensor& x, const Tensor& w, const Tensor& b, const ConvOptions& opt,
                  int nsp, const char* op) {
  ops::read_input(g.win, x, nsp, op);
  STRATA_CHECK(w.defined(), op, ": weights are an undefined tensor");
  STRATA_CHECK(w.dim() == nsp + 2, op, ": expected weights of rank ", nsp + 2, " [k..., in, out], got ",
               shapes_of(x, w));
  STRATA_CHECK(w.dtype() == x.dtype(), op, ": weights are ", dtype_name(w.dtype()), " but x is ",
               dtype_name(x.dtype()));
  STRATA_CHECK(opt.groups >= 1, op, ": groups must be >= 1, got ", opt.groups);
  for (int i = 0; i < nsp; ++i) {
    g.win.kernel[3 - nsp + i] = w.size(i);
    STRATA_CHECK(w.size(i) >= 1, op, ": empty kernel, ", shapes_of(x, w));
  }
  g.win.stride = ops::window_axes(opt.stride, nsp, 1, 1, op, "stride");
  g.win.dilation = ops::window_axes(opt.dilation, nsp, 1, 1, op, "dilation");
  g.groups = opt.groups;
  if (b.defined()) {
    STRATA_CHECK(b.dtype() == x.dtype(), op, ": bias is ", dtype_name(b.dtype()), " but x is ",
                 dtype_name(x.dtype()));
  }
}

void check_groups(const ConvGeometry& g, const Tensor& b, const char* op, const std::string& shapes) {
  STRATA_CHECK(g.in_channels % g.groups == 0 && g.out_channels % g.groups == 0, op, ": groups (", g.groups,
               ") must divide the input channels (", g.in_channels, ") and the output channels (",
               g.out_channels, "); ", shapes);
  STRATA_CHECK(!b.defined() || (b.dim() == 1 && b.size(0) == g.out_channels), op, ": expected bias [",
               g.out_channels, "], got ", b.shape().str(), "; ", shapes);
}

// Which of x, w, b want a gradient.
std::array<bool, 3> grad_flags(const Tensor& x, const Tensor& w, const Tensor& b) {
  return {x.requires_grad(), w.requires_grad(), b.defined() && b.requires_grad()};
}

// Sums g over every axis but the channels: the bias gradient of a channels-last output.
Tensor channel_sum(const Tensor& g) {
  Axes axes;
  for (int a = 0; a + 1 < g.dim(); ++a) axes.push_back(a);
  return sum(g, axes);
}

}  // namespace

ConvGeometry ops::conv_geometry(const Tensor& x, const Tensor& w, const Tensor& b, const ConvOptions& opt, int nsp,
                                const char* op) {
  ConvGeometry g;
  read_weights(g, x, w, b, opt, nsp, op);
  const std::string shapes = shapes_of(x, w) + ", groups " + std::to_string(opt.groups);
  g.in_channels = x.size(-1);
  g.out_channels = w.size(-1);
  check_groups(g, b, op, shapes);
  STRATA_CHECK(w.size(-2) * g.groups == g.in_channels, op, ": weights take ", w.size(-2),
               " input channels per group, x has ", g.in_channels, " channels in ", g.groups, " group(s); ",
               shapes);
  ops::resolve_padding(g.win, opt.padding, op, shapes);
  return g;
}

namespace {

Tensor conv_nd(Op id, int nsp, const Tensor& x, const Tensor& w, const Tensor& b, const ConvOptions& opt) {
  const char* op = ops::op_name(id);
  ConvGeometry g = ops::conv_geometry(x, w, b, opt, nsp, op);
  g.relu = opt.fuse_relu;
  // Under autocast, the bf16 copy of x the forward kernel makes is kept for the weight gradient,
  // and the backward kernels share one copy of dy (strata/core/autocast_copies.hpp).
  std::optional<AutocastCopies> copies;
  if (autocast_bf16_active()) copies.emplace();
  Tensor y = dispatch::conv_forward(x, w, b, g);
  g.relu = false;  // the backward passes take the relu's gradient first, below
  if (autograd::needs_grad({&x, &w, &b})) {
    auto kept = copies && w.requires_grad() ? copies->copies_of(x) : std::vector<AutocastCopies::Copy>();
    auto backward = [x, w, g, need = grad_flags(x, w, b), kept = std::move(kept)](const Tensor& dy) {
      std::optional<AutocastCopies> reuse;
      if (autocast_bf16_active()) reuse.emplace(kept);
      Tensor dx = need[0] ? dispatch::conv_backward_data(dy, w, g) : Tensor();
      Tensor dw, db;
      if (need[1] || need[2]) std::tie(dw, db) = dispatch::conv_backward_weights(x, dy, g, need[2]);
      return Grads{dx, need[1] ? dw : Tensor(), db};
    };
    // A fused relu's gradient reads the output, which is kept only then. Under autocast, the
    // kernels get the gradient and the output as a relu pair (strata/core/autocast_copies.hpp)
    // and mask it themselves: the bf16 ones as they round it, in one pass instead of two.
    if (opt.fuse_relu)
      ops::record(id, {x, w, b}, {y}, [backward](const Grads& gr, const Grads& out) {
        const Tensor &dy = gr[0], &y = out[0];
        if (autocast_bf16_active() && AutocastCopies::enabled() && y.device() == kCPU && y.dtype() == kFloat32 &&
            dy.dtype() == kFloat32 && dy.device() == kCPU && dy.shape() == y.shape() && dy.is_contiguous() &&
            y.is_contiguous()) {
          AutocastCopies pair({{dy, Tensor(), y}});
          return backward(dy);
        }
        return backward(dispatch::binary(dispatch::BinaryOp::relu_backward, dy, y));
      });
    else
      ops::record(id, {x, w, b}, {y}, [backward](const Grads& gr) { return backward(gr[0]); });
  }
  return y;
}

Tensor conv_transpose_nd(Op id, int nsp, const Tensor& x, const Tensor& w, const Tensor& b,
                         const ConvOptions& opt) {
  const char* op = ops::op_name(id);
  STRATA_CHECK(!opt.fuse_relu, op, ": fuse_relu is for convolutions, not transposed ones");
  // The convolution this one transposes maps our output (its input) back to x (its output).
  ConvGeometry g;
  read_weights(g, x, w, b, opt, nsp, op);
  const std::string shapes = shapes_of(x, w) + ", groups " + std::to_string(opt.groups);
  g.win.out = g.win.in;
  g.win.in = {1, 1, 1};
  g.in_channels = w.size(-2) * g.groups;
  g.out_channels = x.size(-1);
  STRATA_CHECK(w.size(-1) == x.size(-1), op, ": weights [k..., out, in] take ", w.size(-1),
               " input channels, x has ", x.size(-1), "; ", shapes);
  check_groups(g, Tensor(), op, shapes);
  STRATA_CHECK(!b.defined() || (b.dim() == 1 && b.size(0) == g.in_channels), op, ": expected bias [",
               g.in_channels, "], got ", b.shape().str(), "; ", shapes);
  ops::resolve_transposed_padding(g.win, opt.padding, op, shapes);

  Tensor y = dispatch::conv_backward_data(x, w, g);
  if (b.defined()) y = dispatch::add(y, b);
  if (autograd::needs_grad({&x, &w, &b}))
    ops::record(id, {x, w, b}, {y}, [x, w, g, need = grad_flags(x, w, b)](const Grads& gr) {
      const Tensor& dy = gr[0];
      Tensor dx = need[0] ? dispatch::conv_forward(dy, w, Tensor(), g) : Tensor();
      Tensor dw = need[1] ? dispatch::conv_backward_weights(dy, x, g, false).first : Tensor();
      Tensor db = need[2] ? channel_sum(dy) : Tensor();
      return Grads{dx, dw, db};
    });
  return y;
}

}  // namespace

Tensor conv1d(const Tensor& x, const Tensor& w, const Tensor& b, const ConvOptions& o) {
  return conv_nd(Op::conv1d, 1, x, w, b, o);
}
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& b, const ConvOptions& o) {
  return conv_nd(Op::conv2d, 2, x, w, b, o);
}
Tensor conv3d(const Tensor& x, const Tensor& w, const Tensor& b, const ConvOptions& o) {
  return conv_nd(Op::conv3d, 3, x, w, b, o);
}
Tensor conv_transpose1d(const Tensor& x, const Tensor& w, const Tensor& b, const ConvOptions& o) {
  return conv_transpose_nd(Op::conv_transpose1d, 1, x, w, b, o);
}
Tensor conv_transpose2d(const Tensor& x, const Tensor& w, const Tensor& b, const ConvOptions& o) {
  return conv_transpose_nd(Op::conv_transpose2d, 2, x, w, b, o);
}
Tensor conv_transpose3d(const Tensor& x, const Tensor& w, const Tensor& b, const ConvOptions& o) {
  return conv_transpose_nd(Op::conv_transpose3d, 3, x, w, b, o);
}

}  // namespace strata
