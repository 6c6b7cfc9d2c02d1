// Max and average pooling CPU kernels (strata/dispatch/pool.hpp documents them). float32 runs on
// oneDNN (max-pool backward reads the forward's workspace of winning positions), except the 2x2
// stride-2 max pool of even sizes (max_pool_2x2.hpp); float64 on the loops of pool_reference.hpp.
#pragma once
#include <memory>

#include "kernels/cpu/spatial_window.hpp"
#include "strata/dispatch/pool.hpp"

namespace strata::kernels::cpu {

using dispatch::PoolWorkspace;

Tensor pool_forward(const Tensor& x, const PoolGeometry& g, std::shared_ptr<PoolWorkspace>* workspace);
Tensor pool_backward(const Tensor& dy, const Tensor& x, const PoolGeometry& g,
                     const std::shared_ptr<PoolWorkspace>& workspace);

}  // namespace strata::kernels::cpu
