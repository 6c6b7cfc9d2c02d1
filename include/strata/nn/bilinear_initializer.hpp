// TensorLayer's deconv2d_bilinear_upsampling_initializer: DeConv2d weights that make the layer a
// bilinear up-sampler (stride = (k + 1) / 2 for a k x k filter), per channel.
#pragma once
#include "strata/nn/initializers.hpp"

namespace strata::nn {

// For W [k, k, out, in] (DeConv2d's layout; square, in >= out): float32 zeros but for
// W[:, :, i, i] = the bilinear kernel (1 - |x - c| / f) (1 - |y - c| / f), f = (k + 1) / 2 (integer
// division), c = f - 1 for odd k and f - 0.5 for even k.
Initializer deconv2d_bilinear_upsampling_initializer();

}  // namespace strata::nn
