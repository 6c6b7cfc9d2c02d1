// Max and average pooling kernels on raw channels-last tensors (no autograd). float32 runs on
// oneDNN (max-pool backward reads the forward's workspace of winning positions), except the
// 2x2 stride-2 max pool of even sizes (max_pool_2x2.hpp); float64 on the loops of
// pool_reference.hpp. Averages exclude padding; padding never wins a max.
#pragma once
#include <memory>

#include "kernels/cpu/spatial_window.hpp"
#include "strata/core/tensor.hpp"

namespace strata::kernels::cpu {

struct PoolGeometry {
  Window win;
  int64_t channels = 0;
  bool max = true;  // false: average
};

// What a backward pass needs from its forward pass (oneDNN's workspace); opaque.
struct PoolWorkspace;

// y[N, out..., C]. With `workspace` non-null, the forward keeps what pool_backward needs.
Tensor pool_forward(const Tensor& x, const PoolGeometry& g, std::shared_ptr<PoolWorkspace>* workspace);
// dL/dx from dy; x and the forward's workspace as pool_forward returned them.
Tensor pool_backward(const Tensor& dy, const Tensor& x, const PoolGeometry& g,
                     const std::shared_ptr<PoolWorkspace>& workspace);

}  // namespace strata::kernels::cpu
