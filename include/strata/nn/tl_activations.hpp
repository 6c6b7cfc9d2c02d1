// TensorLayer's fixed-slope activations (tl.act.ramp, leaky_relu6, leaky_twice_relu6) as
// differentiable functions of tensors, for `act` arguments and Lambda layers. The learned-slope
// forms are nn/prelu6.hpp's layers.
#pragma once
#include "strata/core/tensor.hpp"

namespace strata::nn {

// x clipped to [v_min, v_max] (tf.clip_by_value); the gradient is 1 inside, 0 outside.
Tensor ramp(const Tensor& x, double v_min = 0, double v_max = 1);
// min(max(x, alpha x), 6): alpha x below 0, x up to 6, then 6. alpha in (0, 1].
Tensor leaky_relu6(const Tensor& x, double alpha = 0.2);
// max(min(x, 6 (1 - alpha_high) + alpha_high x), min(alpha_low x, 0)): alpha_low x below 0, x up
// to 6, then 6 + alpha_high (x - 6). Both slopes in (0, 1].
Tensor leaky_twice_relu6(const Tensor& x, double alpha_low = 0.2, double alpha_high = 0.2);

}  // namespace strata::nn
