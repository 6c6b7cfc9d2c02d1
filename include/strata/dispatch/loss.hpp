// The fused loss kernel families. A loss is either kept per element / per row (reduced = false:
// the result has that shape) or summed and multiplied by `scale` (reduced = true: a 0-d result;
// scale = 1/count for a mean, 1 for a sum). Backward kernels take the matching output gradient
// (per element / per row, or 0-d) and the same reduced / scale.
#pragma once
#include <utility>

#include "strata/dispatch/stub.hpp"

namespace strata::dispatch {

enum class PointwiseLoss { mse, l1, huber /*delta*/, bce_with_logits };

// loss(x, t) element by element; x and t have one shape and dtype.
extern Stub<Tensor(PointwiseLoss kind, const Tensor& x, const Tensor& t, bool reduced, double scale, double delta)>
    pointwise_loss;
// {dL/dx, dL/dt}; each is computed only when asked for (else undefined).
extern Stub<std::pair<Tensor, Tensor>(PointwiseLoss kind, const Tensor& grad, const Tensor& x, const Tensor& t,
                                      bool reduced, double scale, double delta, bool want_x, bool want_t)>
    pointwise_loss_backward;
// Throws strata::Error naming `op`, the first id outside [0, classes) and `classes`.
extern Stub<void(const Tensor& ids, int64_t classes, const char* op)> check_class_ids;
// Softmax cross-entropy of logits [rows, C] (classes last) against int class ids [rows] or
// probabilities [rows, C]. `lse` receives each row's logsumexp, which the backward pass uses to
// rebuild the softmax without storing it.
extern Stub<Tensor(const Tensor& logits, const Tensor& targets, bool reduced, double scale, Tensor& lse)>
    cross_entropy_forward;
// {dL/dlogits = g (softmax * sum(t) - t), dL/dtargets = g (lse - logits)} (the second only for
// probability targets, and only when asked for).
extern Stub<std::pair<Tensor, Tensor>(const Tensor& grad, const Tensor& logits, const Tensor& targets,
                                      const Tensor& lse, bool reduced, double scale, bool want_targets)>
    cross_entropy_backward;
// -log_probs[r, id_r] per row.
extern Stub<Tensor(const Tensor& log_probs, const Tensor& ids, bool reduced, double scale)> nll_forward;
// -g at each row's id, zero elsewhere, of log_probs' shape and dtype.
extern Stub<Tensor(const Tensor& grad, const Tensor& ids, const Shape& shape, DType dtype, bool reduced, double scale)>
    nll_backward;

}  // namespace strata::dispatch
