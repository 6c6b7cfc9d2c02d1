// Fused loss CPU kernels (strata/dispatch/loss.hpp documents them).
#pragma once
#include <utility>

#include "strata/dispatch/loss.hpp"

namespace strata::kernels::cpu {

using dispatch::PointwiseLoss;

Tensor pointwise_loss(PointwiseLoss kind, const Tensor& x, const Tensor& t, bool reduced, double scale, double delta);
std::pair<Tensor, Tensor> pointwise_loss_backward(PointwiseLoss kind, const Tensor& grad, const Tensor& x,
                                                  const Tensor& t, bool reduced, double scale, double delta,
                                                  bool want_x, bool want_t);
void check_class_ids(const Tensor& ids, int64_t classes, const char* op);
Tensor cross_entropy_forward(const Tensor& logits, const Tensor& targets, bool reduced, double scale, Tensor& lse);
std::pair<Tensor, Tensor> cross_entropy_backward(const Tensor& grad, const Tensor& logits, const Tensor& targets,
                                                 const Tensor& lse, bool reduced, double scale, bool want_targets);
Tensor nll_forward(const Tensor& log_probs, const Tensor& ids, bool reduced, double scale);
Tensor nll_backward(const Tensor& grad, const Tensor& ids, const Shape& shape, DType dtype, bool reduced,
                    double scale);

}  // namespace strata::kernels::cpu
