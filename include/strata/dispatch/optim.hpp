// The optimizer update-step kernel families: one fused pass per parameter.
#pragma once
#include "strata/dispatch/stub.hpp"

namespace strata::dispatch {

// The scalars of one Adam / AdamW step. Adam's L2 term and AdamW's decay are both always
// applied, with l2 = 0 or decay = 1 when unused.
struct AdamStep {
  double beta1, beta2, eps, l2, decay, step_size, bias_correction2_sqrt;
};
// p, g, m, v (and vmax for AMSGrad, else null) contiguous, one shape and dtype; updates p, m, v
// and vmax in place.
extern Stub<void(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, Tensor* vmax, const AdamStep& s)> adam_step;

}  // namespace strata::dispatch
