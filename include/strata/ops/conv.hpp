// Convolutions over channels-last tensors (TensorLayer's layout): x is [N, W, C], [N, H, W, C]
// or [N, D, H, W, C]; weights are [k..., C / groups, O] (Conv2d W = [kh, kw, in, out]); bias [O].
// float32 runs on oneDNN; float64 on plain loops (for gradient checks). Differentiable in x, w, b.
#pragma once
#include "strata/core/tensor.hpp"
#include "strata/ops/padding.hpp"

namespace strata {

// e.g. conv2d(x, w, b, {.stride = {2}, .padding = Padding::same()}).
struct ConvOptions {
  SpatialSizes stride = {1};
  Padding padding = Padding::valid();
  SpatialSizes dilation = {1};
  int64_t groups = 1;  // divides C and O; group g maps channels [g*C/groups, ...) to [g*O/groups, ...)
  // relu(conv(x)) in the same pass over the output (a oneDNN post-op); conv1d/2d/3d only. The
  // nn convolution layers set it for a "relu" activation.
  bool fuse_relu = false;
};

// y[N, out..., O]; `b` may be undefined (no bias).
Tensor conv1d(const Tensor& x, const Tensor& w, const Tensor& b = Tensor(), const ConvOptions& options = {});
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& b = Tensor(), const ConvOptions& options = {});
Tensor conv3d(const Tensor& x, const Tensor& w, const Tensor& b = Tensor(), const ConvOptions& options = {});

// Transposed convolution (TensorLayer DeConv2d, tf.nn.conv2d_transpose): the gradient of the
// convolution with the same weights. Weights follow TensorFlow's filter layout [k..., O, C]
// (O = output channels, C = x's channels; with groups, [k..., O / groups, C]); bias [O].
// Output size per spatial axis, k the dilated kernel (Keras Conv2DTranspose, no output_padding):
//   SAME: in * stride;  VALID: (in - 1) * stride + k;  explicit: (in - 1) * stride + k - before - after.
Tensor conv_transpose1d(const Tensor& x, const Tensor& w, const Tensor& b = Tensor(),
                        const ConvOptions& options = {});
Tensor conv_transpose2d(const Tensor& x, const Tensor& w, const Tensor& b = Tensor(),
                        const ConvOptions& options = {});
Tensor conv_transpose3d(const Tensor& x, const Tensor& w, const Tensor& b = Tensor(),
                        const ConvOptions& options = {});

}  // namespace strata
