// Matrix products. Everything funnels into one batched kernel family (strata/dispatch/matmul.hpp) on 3-D
// views; gradients are matmuls with transposed views, summed over broadcast batch axes.
#include "strata/ops/linalg.hpp"

#include <optional>
#include <vector>

#include "ops/op_common.hpp"
#include "strata/core/autocast.hpp"
#include "strata/core/autocast_copies.hpp"
#include "strata/dispatch/matmul.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata {
namespace {

using ops::Grads;

// t [..., R, C] as [B, R, C] given the broadcast batch shape: a view when the batch axes
// collapse into one stride, else a copy.
Tensor as_batch3d(const Tensor& t, const Shape& batch, bool broadcast_needed) {
  int nb = t.dim() - 2;
  int64_t R = t.shape()[nb], C = t.shape()[nb + 1];
  int64_t tb = 1;
  for (int d = 0; d < nb; ++d) tb *= t.shape()[d];
  if (broadcast_needed) {
    Shape full = batch;
    full.push_back(R);
    full.push_back(C);
    Tensor e = contiguous(expand(t, full)).detach();
    return e.as_strided({batch.numel(), R, C}, {R * C, e.strides()[full.size() - 2], 1}, e.offset());
  }
  // Batch axes collapse into one stride when each is laid out right after the next.
  bool collapsible = true;
  for (int d = 0; d + 1 < nb; ++d)
    if (t.shape()[d + 1] != 1 && t.strides()[d] != t.strides()[d + 1] * t.shape()[d + 1]) collapsible = false;
  Tensor src = collapsible ? t : contiguous(t).detach();
  int64_t bstride = nb == 0 ? R * C : src.strides()[nb - 1];
  if (nb > 0) {
    // The innermost batch axis of size > 1 gives the stride (size-1 axes carry arbitrary strides).
    for (int d = nb - 1; d >= 0; --d)
      if (src.shape()[d] != 1) {
        bstride = src.strides()[d];
        break;
      }
  }
  return src.as_strided({tb, R, C}, {bstride, src.strides()[nb], src.strides()[nb + 1]}, src.offset());
}

Shape batch_of(const Tensor& t) { return Shape(t.shape().begin(), t.shape().end() - 2); }

// a [..., M, K] · b [..., K, N], both at least 2-D.
Tensor matmul_nd(const Tensor& a, const Tensor& b) {
  const int64_t K = a.shape().back(), Kb = b.shape()[b.dim() - 2];
  STRATA_CHECK(K == Kb, "matmul: shapes ", a.shape().str(), " and ", b.shape().str(),
               " do not align (", K, " columns vs ", Kb, " rows)");
  Shape ba = batch_of(a), bb = batch_of(b);
  Shape batch = ba == bb ? ba : broadcast_shapes(ba, bb, "matmul");
  // Broadcasting only grows size-1 axes, so an operand with all or one of the batch elements
  // keeps its layout; only a partly broadcast one ([2,1] against [1,3]) is expanded.
  auto partly_broadcast = [&](const Shape& s) { return s.numel() != 1 && s.numel() != batch.numel(); };
  Tensor a3 = as_batch3d(a, batch, partly_broadcast(ba));
  Tensor b3 = as_batch3d(b, batch, partly_broadcast(bb));
  Tensor y3 = dispatch::matmul3d(a3, b3, Tensor());
  Shape out = batch;
  out.push_back(a.shape()[a.dim() - 2]);
  out.push_back(b.shape().back());
  Tensor y = y3.as_strided(out, contiguous_strides(out), 0);
  if (autograd::needs_grad({&a, &b}))
    // Each operand's gradient reads only the other operand: keep it only when needed.
    ops::record(ops::Op::matmul, {a, b}, {y},
                [ashape = a.shape(), bshape = b.shape(), a = b.requires_grad() ? a : Tensor(),
                 b = a.requires_grad() ? b : Tensor()](const Grads& g) {
                  return Grads{b.defined() ? sum_to(matmul(g[0], mT(b)), ashape) : Tensor(),
                               a.defined() ? sum_to(matmul(mT(a), g[0]), bshape) : Tensor()};
                });
  return y;
}

}  // namespace

Tensor mT(const Tensor& x) {
  STRATA_CHECK(x.dim() >= 2, "mT: needs at least 2 dimensions, got shape ", x.shape().str());
  return transpose(x, -2, -1);
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  ops::check_defined(a, "matmul", "first operand");
  ops::check_defined(b, "matmul", "second operand");
  ops::check_floating(a, "matmul");
  STRATA_CHECK(a.dim() >= 1 && b.dim() >= 1, "matmul: operands must have at least 1 dimension, got shapes ",
               a.shape().str(), " and ", b.shape().str());
  STRATA_CHECK(a.dtype() == b.dtype(), "matmul: dtypes ", dtype_name(a.dtype()), " and ", dtype_name(b.dtype()),
               " differ");
  if (a.dim() == 1 && b.dim() == 1) return sum(a * b);
  if (a.dim() == 1) return squeeze(matmul_nd(unsqueeze(a, 0), b), -2);
  if (b.dim() == 1) return squeeze(matmul_nd(a, unsqueeze(b, 1)), -1);
  return matmul_nd(a, b);
}

Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b) {
  ops::check_defined(x, "linear", "input");
  ops::check_defined(w, "linear", "weight");
  STRATA_CHECK(w.dim() == 2, "linear: weight must be [in, out], got shape ", w.shape().str());
  STRATA_CHECK(x.dim() >= 1 && x.shape().back() == w.shape()[0], "linear: input of shape ", x.shape().str(),
               " has ", x.dim() ? x.shape().back() : 0, " features but the weight ", w.shape().str(), " expects ",
               w.shape()[0]);
  STRATA_CHECK(x.dtype() == w.dtype(), "linear: input is ", dtype_name(x.dtype()), " but the weight is ",
               dtype_name(w.dtype()));
  const int64_t in = w.shape()[0], out = w.shape()[1];
  STRATA_CHECK(!b.defined() || (b.dim() == 1 && b.shape()[0] == out), "linear: bias must be [", out, "], got ",
               b.defined() ? b.shape().str() : "");
  Tensor x2 = contiguous(x).detach();
  int64_t rows = x.numel() / std::max<int64_t>(in, 1);
  // Under autocast, the bf16 copy of w the forward kernel makes is kept for the backward's wᵀ,
  // and the backward's two products share one copy of the output gradient
  // (strata/core/autocast_copies.hpp).
  std::optional<AutocastCopies> copies;
  if (autocast_bf16_active()) copies.emplace();
  Tensor y3 = dispatch::matmul3d(x2.as_strided({1, rows, in}, {rows * in, in, 1}, x2.offset()),
                                     w.detach().as_strided({1, in, out}, {in * out, w.strides()[0], w.strides()[1]},
                                                           w.offset()),
                                     b);
  Shape shape = x.shape();
  shape[shape.size() - 1] = out;
  Tensor y = y3.as_strided(shape, contiguous_strides(shape), 0);
  if (autograd::needs_grad({&x, &w, &b}))
    // dx reads w, dw reads x, db neither: keep each only when the other wants a gradient.
    ops::record(ops::Op::linear, {x, w, b}, {y},
                [xshape = x.shape(), x = w.requires_grad() ? x : Tensor(), w = x.requires_grad() ? w : Tensor(),
                 bias_grad = b.defined() && b.requires_grad(), rows, in, out,
                 kept = copies && x.requires_grad() ? copies->copies_of(w)
                                                    : std::vector<AutocastCopies::Copy>()](const Grads& g) {
                  std::optional<AutocastCopies> reuse;
                  if (autocast_bf16_active()) reuse.emplace(kept);
                  Tensor g2 = reshape(g[0], {rows, out});
                  Tensor gx = w.defined() ? reshape(matmul(g2, mT(w)), xshape) : Tensor();
                  Tensor gw = x.defined() ? matmul(mT(reshape(x, {rows, in})), g2) : Tensor();
                  return Grads{gx, gw, bias_grad ? sum(g2, {0}) : Tensor()};
                });
  return y;
}

Tensor outer(const Tensor& a, const Tensor& b) {
  STRATA_CHECK(a.dim() == 1 && b.dim() == 1, "outer: expects two vectors, got shapes ", a.shape().str(), " and ",
               b.shape().str());
  return unsqueeze(a, 1) * unsqueeze(b, 0);
}

}  // namespace strata
