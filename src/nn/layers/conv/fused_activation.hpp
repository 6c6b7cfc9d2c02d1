// A convolution layer's convolution and activation. A "relu" activation runs inside the
// convolution (ConvOptions::fuse_relu, a oneDNN post-op): one pass over the output instead of
// two, which at batch 1 was a quarter of a small convolution layer's time.
#pragma once
#include "strata/nn/layers/activation.hpp"
#include "strata/ops/conv.hpp"

namespace strata::nn::detail {

using ConvFn = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const ConvOptions&);

inline Tensor convolve_and_activate(ConvFn conv, const Tensor& x, const Tensor& w, const Tensor& b, ConvOptions options,
                                    const Activation& act, bool can_fuse = true) {
  if (can_fuse && act.name() == "relu") {
    options.fuse_relu = true;
    return conv(x, w, b, options);
  }
  return act(conv(x, w, b, options));
}

}  // namespace strata::nn::detail
