// TensorLayer's remaining costs as compositions of differentiable ops (no kernels of their own:
// they are not hot enough to be worth a fused backward, and composing gives higher-order
// gradients for free).
#include "strata/ops/costs.hpp"

#include <cmath>
#include <limits>

#include "ops/op_common.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/shape.hpp"

namespace strata {
namespace {

// The axes a per-sample statistic sums over: the given ones, or every axis but the batch axis.
Axes sample_axes(const char* op, const Tensor& x, const Axes& axes) {
  STRATA_CHECK(x.dim() >= 2, op, ": expected a batch [N, ...] with at least 2 dimensions, got ", x.shape().str());
  if (!axes.empty()) return axes;
  Axes all;
  for (int64_t a = 1; a < x.dim(); ++a) all.push_back(a);
  return all;
}

Tensor reduce(const Tensor& per_item, Reduction reduction) {
  switch (reduction) {
    case Reduction::none: return per_item;
    case Reduction::sum: return sum(per_item);
    case Reduction::mean: break;
  }
  return mean(per_item);
}

// A regulariser's checks (scale finite and >= 0; a float weight, 2-D when it works on rows or
// columns), then scale * body(w).
template <class Body>
Tensor regularizer(const char* op, const Tensor& w, double scale, bool matrix, Body body) {
  STRATA_CHECK(std::isfinite(scale) && scale >= 0, op, ": scale must be finite and >= 0, got ", scale);
  ops::check_defined(w, op, "weight");
  ops::check_floating(w, op);
  STRATA_CHECK(!matrix || w.dim() == 2, op, ": expected a 2-D weight [in, out], got ", w.shape().str());
  return body(w) * scale;
}

// 0/1 float maps of the thresholded output and target (the hard coefficients' inputs).
std::pair<Tensor, Tensor> thresholded(const char* op, const Tensor& output, const Tensor& target, double threshold) {
  ops::check_pair(op, output, target, "output", "target");
  return {cast(output > threshold, output.dtype()), cast(target > threshold, output.dtype())};
}

}  // namespace

Tensor binary_cross_entropy(const Tensor& probs, const Tensor& targets, Reduction reduction, double eps) {
  const char* op = "binary_cross_entropy";
  ops::check_pair(op, probs, targets, "probs", "targets");
  STRATA_CHECK(eps >= 0 && eps < 1, op, ": eps must be in [0, 1), got ", eps);
  if (probs.numel() > 0) {
    const double lo = amin(probs.detach()).item<double>(), hi = amax(probs.detach()).item<double>();
    STRATA_CHECK(lo >= 0 && hi <= 1, op, ": probabilities must lie in [0, 1] (apply sigmoid, or use "
                 "binary_cross_entropy_with_logits on logits), got values in [", lo, ", ", hi, "]");
  }
  Tensor loss = -(targets * log(probs + eps) + (1.0 - targets) * log(1.0 - probs + eps));
  return reduce(loss, reduction);
}

Tensor dice_coe(const Tensor& output, const Tensor& target, DiceKind kind, const Axes& axes, double smooth) {
  const char* op = "dice_coe";
  ops::check_pair(op, output, target, "output", "target");
  const Axes ax = sample_axes(op, output, axes);
  Tensor inse = sum(output * target, ax);
  Tensor l = kind == DiceKind::jaccard ? sum(square(output), ax) : sum(output, ax);
  Tensor r = kind == DiceKind::jaccard ? sum(square(target), ax) : sum(target, ax);
  return mean((2.0 * inse + smooth) / (l + r + smooth));
}

Tensor dice_hard_coe(const Tensor& output, const Tensor& target, double threshold, const Axes& axes, double smooth) {
  const char* op = "dice_hard_coe";
  auto [o, t] = thresholded(op, output, target, threshold);
  const Axes ax = sample_axes(op, output, axes);
  return mean((2.0 * sum(o * t, ax) + smooth) / (sum(o, ax) + sum(t, ax) + smooth));
}

Tensor iou_coe(const Tensor& output, const Tensor& target, double threshold, const Axes& axes, double smooth) {
  const char* op = "iou_coe";
  auto [o, t] = thresholded(op, output, target, threshold);
  const Axes ax = sample_axes(op, output, axes);
  Tensor inse = sum(o * t, ax);
  Tensor uni = sum(maximum(o, t), ax);  // o | t of 0/1 maps
  return mean((inse + smooth) / (uni + smooth));
}

Tensor soft_iou_coe(const Tensor& output, const Tensor& target, const Axes& axes, double smooth) {
  const char* op = "soft_iou_coe";
  ops::check_pair(op, output, target, "output", "target");
  const Axes ax = sample_axes(op, output, axes);
  Tensor inse = sum(output * target, ax);
  return mean((inse + smooth) / (sum(output, ax) + sum(target, ax) - inse + smooth));
}

Tensor cosine_similarity(const Tensor& a, const Tensor& b, int64_t axis, double eps) {
  const char* op = "cosine_similarity";
  ops::check_defined(a, op, "a");
  ops::check_defined(b, op, "b");
  ops::check_floating(a, op);
  STRATA_CHECK(a.dtype() == b.dtype(), op, ": b must have the dtype of a (", dtype_name(a.dtype()), "), got ",
               dtype_name(b.dtype()));
  STRATA_CHECK(eps > 0, op, ": eps must be > 0, got ", eps);
  Tensor dot = sum(a * b, {axis});
  Tensor norms = sqrt(sum(square(a), {axis}) * sum(square(b), {axis}));
  return dot / clamp(norms, eps, std::numeric_limits<double>::infinity());
}

Tensor normalized_mse(const Tensor& output, const Tensor& target, Reduction reduction) {
  const char* op = "normalized_mse";
  ops::check_pair(op, output, target, "output", "target");
  const Axes ax = sample_axes(op, output, {});
  return reduce(sqrt(sum(square(output - target), ax)) / sqrt(sum(square(target), ax)), reduction);
}

Tensor cross_entropy_seq_with_mask(const Tensor& logits, const Tensor& targets, const Tensor& mask) {
  const char* op = "cross_entropy_seq_with_mask";
  ops::check_defined(logits, op, "logits");
  ops::check_defined(targets, op, "targets");
  ops::check_defined(mask, op, "mask");
  STRATA_CHECK(targets.dim() == 2, op, ": expected targets [B, T], got ", targets.shape().str());
  STRATA_CHECK(mask.shape() == targets.shape(), op, ": mask must have the shape of targets ",
               targets.shape().str(), ", got ", mask.shape().str());
  const int64_t steps = targets.shape().numel();
  STRATA_CHECK((logits.dim() == 3 && logits.shape()[0] == targets.shape()[0] &&
                logits.shape()[1] == targets.shape()[1]) ||
                   (logits.dim() == 2 && logits.shape()[0] == steps),
               op, ": expected logits [B, T, C] or [B*T, C] for targets ", targets.shape().str(), ", got ",
               logits.shape().str());
  Tensor flat = logits.dim() == 3 ? reshape(logits, {steps, logits.shape().back()}) : logits;
  Tensor ce = cross_entropy(flat, reshape(targets, {steps}), Reduction::none);
  Tensor m = reshape(cast(mask, ce.dtype()), {steps});
  Tensor total = sum(m);
  STRATA_CHECK(total.detach().item<double>() != 0, op, ": the mask marks no step (its sum is 0)");
  return sum(ce * m) / total;
}

Tensor l1_regularizer(const Tensor& w, double scale) {
  return regularizer("l1_regularizer", w, scale, false, [](const Tensor& v) { return sum(abs(v)); });
}
Tensor l2_regularizer(const Tensor& w, double scale) {
  return regularizer("l2_regularizer", w, scale, false, [](const Tensor& v) { return sum(square(v)) * 0.5; });
}
Tensor li_regularizer(const Tensor& w, double scale) {
  return regularizer("li_regularizer", w, scale, true, [](const Tensor& v) { return sum(sqrt(sum(square(v), {1}))); });
}
Tensor lo_regularizer(const Tensor& w, double scale) {
  return regularizer("lo_regularizer", w, scale, true, [](const Tensor& v) { return sum(sqrt(sum(square(v), {0}))); });
}
Tensor maxnorm_regularizer(const Tensor& w, double scale) {
  return regularizer("maxnorm_regularizer", w, scale, false, [](const Tensor& v) { return amax(abs(v)); });
}
Tensor maxnorm_o_regularizer(const Tensor& w, double scale) {
  return regularizer("maxnorm_o_regularizer", w, scale, true, [](const Tensor& v) { return sum(amax(abs(v), {0})); });
}
Tensor maxnorm_i_regularizer(const Tensor& w, double scale) {
  return regularizer("maxnorm_i_regularizer", w, scale, true, [](const Tensor& v) { return sum(amax(abs(v), {1})); });
}

}  // namespace strata
