// The backward-data pass of a stride-1, undilated, ungrouped convolution is itself a forward
// convolution: of dy, with the weights flipped in space and their in/out channels swapped,
// padded by k-1-pad on each side. oneDNN 2.6 runs forward convolutions with its brgconv kernels
// but backward-data with its older jit ones: the TL tutorial CNN's 5x5 32->64 backward-data pass
// at batch 128 took about 1.8x the time of the same work run as a forward (docs/benchmarks.md,
// "The eager training path"), so conv_backward_data runs these geometries as forwards.
#pragma once
#include "strata/core/tensor.hpp"
#include "strata/dispatch/window.hpp"

namespace strata::kernels::cpu {

using dispatch::ConvGeometry;

// True when g's backward-data pass can run as backward_data_as_forward(g).
bool backward_data_runs_forward(const ConvGeometry& g);
// The forward convolution (no bias, no relu) of dy that gives g's dx.
ConvGeometry backward_data_as_forward(const ConvGeometry& g);
// Its weights from g's float32 contiguous w [k..., C, O]: [k..., O, C], kernel positions reversed.
Tensor flipped_transposed_weights(const Tensor& w, const ConvGeometry& g);
// The same into `out` (g's weight count of floats), for callers that keep the buffer.
void flip_transpose_weights(const float* w, const ConvGeometry& g, float* out);

}  // namespace strata::kernels::cpu
