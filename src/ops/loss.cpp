// Losses: each is one fused forward kernel and one backward kernel (loss_kernels), the
// reduction included, so a mean loss over a batch makes no per-element temporaries.
#include "strata/ops/loss.hpp"

#include <algorithm>

#include "ops/op_common.hpp"
#include "strata/dispatch/loss.hpp"

namespace strata {
namespace {

using dispatch::PointwiseLoss;

// The loss tensor's reduction as the kernels take it: reduced?, and the factor on the sum.
struct Reduce {
  bool reduced;
  double scale;
  Reduce(Reduction r, int64_t count)
      : reduced(r != Reduction::none), scale(r == Reduction::mean ? 1.0 / static_cast<double>(count) : 1.0) {}
};

Shape without_last(const Shape& s) {
  Shape out = s;
  if (out.size() > 0) out.erase(out.size() - 1);
  return out;
}

// The kernels return per-row losses flat; unreduced, they take the targets' shape.
Tensor shaped_rows(const Tensor& y, const Reduce& r, const Shape& shape) {
  return r.reduced ? y : y.as_strided(shape, contiguous_strides(shape), 0);
}

// Checks class-id targets of a [..., C] input: int dtype, shape input.shape[:-1], ids in range.
void check_ids(const char* op, const Tensor& input, const Tensor& ids) {
  STRATA_CHECK(ids.shape() == without_last(input.shape()), op, ": class-id targets must have shape ",
               without_last(input.shape()).str(), " (the input ", input.shape().str(),
               " without its class axis), got ", ids.shape().str());
  dispatch::check_class_ids(ids, input.shape().back(), op);
}

Tensor pointwise(ops::Op id, PointwiseLoss kind, const Tensor& x, const Tensor& t, Reduction reduction,
                 double delta = 0) {
  const char* op = ops::op_name(id);
  ops::check_pair(op, x, t, "input", "target");
  const Reduce r(reduction, x.numel());
  Tensor y = dispatch::pointwise_loss(kind, x, t, r.reduced, r.scale, delta);
  if (autograd::needs_grad({&x, &t}))
    ops::record(id, {x, t}, {y}, [x, t, kind, r, delta](const ops::Grads& g) {
      auto [gx, gt] = dispatch::pointwise_loss_backward(kind, g[0], x, t, r.reduced, r.scale, delta,
                                                            x.requires_grad(), t.requires_grad());
      return ops::Grads{gx, gt};
    });
  return y;
}

}  // namespace

Tensor cross_entropy(const Tensor& logits, const Tensor& targets, Reduction reduction) {
  const char* op = "cross_entropy";
  ops::check_defined(logits, op, "logits");
  ops::check_defined(targets, op, "targets");
  ops::check_floating(logits, op);
  STRATA_CHECK(logits.dim() >= 1, op, ": expected logits [..., C] with at least one dimension, got a scalar");
  if (is_floating(targets.dtype())) ops::check_pair(op, logits, targets, "logits", "probability targets");
  else check_ids(op, logits, targets);
  const Reduce r(reduction, logits.numel() / std::max<int64_t>(logits.shape().back(), 1));
  Tensor lse;
  Tensor y = shaped_rows(dispatch::cross_entropy_forward(logits, targets, r.reduced, r.scale, lse), r,
                         without_last(logits.shape()));
  if (autograd::needs_grad({&logits, &targets}))
    ops::record(ops::Op::cross_entropy, {logits, targets}, {y}, [logits, targets, lse, r](const ops::Grads& g) {
      auto [gx, gt] = dispatch::cross_entropy_backward(g[0], logits, targets, lse, r.reduced, r.scale,
                                                           targets.requires_grad());
      return ops::Grads{logits.requires_grad() ? gx : Tensor(), gt};
    });
  return y;
}

Tensor nll_loss(const Tensor& log_probs, const Tensor& targets, Reduction reduction) {
  const char* op = "nll_loss";
  ops::check_defined(log_probs, op, "log_probs");
  ops::check_defined(targets, op, "targets");
  ops::check_floating(log_probs, op);
  STRATA_CHECK(log_probs.dim() >= 1, op, ": expected log_probs [..., C] with at least one dimension, got a scalar");
  check_ids(op, log_probs, targets);
  const Reduce r(reduction, targets.numel());
  Tensor y = shaped_rows(dispatch::nll_forward(log_probs, targets, r.reduced, r.scale), r, targets.shape());
  if (autograd::needs_grad({&log_probs}))
    ops::record(ops::Op::nll_loss, {log_probs}, {y},
                     [targets, shape = log_probs.shape(), dtype = log_probs.dtype(), r](const ops::Grads& g) {
                       return ops::Grads{dispatch::nll_backward(g[0], targets, shape, dtype, r.reduced, r.scale)};
                     });
  return y;
}

Tensor binary_cross_entropy_with_logits(const Tensor& logits, const Tensor& targets, Reduction reduction) {
  return pointwise(ops::Op::binary_cross_entropy_with_logits, PointwiseLoss::bce_with_logits, logits, targets,
                   reduction);
}
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  return pointwise(ops::Op::mse_loss, PointwiseLoss::mse, input, target, reduction);
}
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  return pointwise(ops::Op::l1_loss, PointwiseLoss::l1, input, target, reduction);
}
Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction, double delta) {
  STRATA_CHECK(delta > 0, "huber_loss: delta must be positive, got ", delta);
  return pointwise(ops::Op::huber_loss, PointwiseLoss::huber, input, target, reduction, delta);
}

}  // namespace strata
