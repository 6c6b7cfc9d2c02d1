// The Adam update step on the CPU (strata/dispatch/optim.hpp documents it).
#pragma once
#include "strata/dispatch/optim.hpp"

namespace strata::kernels::cpu {

void adam_step(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, Tensor* vmax, const dispatch::AdamStep& s);

}  // namespace strata::kernels::cpu
