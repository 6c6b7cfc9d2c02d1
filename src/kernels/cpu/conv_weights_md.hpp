// Our convolution weights [k..., C/groups, O] described in oneDNN's logical order, (O, C, k...)
// or with groups (G, O/G, C/G, k...), by strides: oneDNN reads and writes them in place. Shared
// by the convolution kernels and the prepared ones (prepared_kernels.cpp).
#pragma once
#include "kernels/cpu/dnnl_context.hpp"
#include "strata/dispatch/window.hpp"

namespace strata::kernels::cpu {

dnnl::memory::desc user_weights_md(const dispatch::ConvGeometry& g);

}  // namespace strata::kernels::cpu
