// The CUDA backend's loss families, each with its stub's signature. STRATA_CUDA_LOSS_STUBS lists
// the ones implemented (families.hpp registers them).
#pragma once
#include "kernels/cuda/portable.hpp"
#include "strata/dispatch/loss.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

Tensor pointwise_loss(dispatch::PointwiseLoss kind, const Tensor& x, const Tensor& t, bool reduced, double scale,
                      double delta);
std::pair<Tensor, Tensor> pointwise_loss_backward(dispatch::PointwiseLoss kind, const Tensor& grad, const Tensor& x,
                                                  const Tensor& t, bool reduced, double scale, double delta,
                                                  bool want_x, bool want_t);
void check_class_ids(const Tensor& ids, int64_t classes, const char* op);
Tensor cross_entropy_forward(const Tensor& logits, const Tensor& targets, bool reduced, double scale, Tensor& lse);
std::pair<Tensor, Tensor> cross_entropy_backward(const Tensor& grad, const Tensor& logits, const Tensor& targets,
                                                 const Tensor& lse, bool reduced, double scale, bool want_targets);
Tensor nll_forward(const Tensor& log_probs, const Tensor& ids, bool reduced, double scale);
Tensor nll_backward(const Tensor& grad, const Tensor& ids, const Shape& shape, DType dtype, bool reduced,
                    double scale);

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda

#define STRATA_CUDA_LOSS_STUBS(X)                                                                  \
  X(pointwise_loss) X(pointwise_loss_backward) X(check_class_ids) X(cross_entropy_forward)        \
  X(cross_entropy_backward) X(nll_forward) X(nll_backward)
