// The strides (in elements) with which a kernel reads `t` as if it had shape `out`, under NumPy
// broadcasting: 0 on the axes `t` lacks (leading ones) or has with size 1, its own elsewhere.
// Every backend's broadcasting kernels start from these (the CPU's loops scale them to bytes).
#pragma once
#include "strata/core/error.hpp"
#include "strata/core/tensor.hpp"

namespace strata::dispatch {

inline Shape broadcast_strides(const Tensor& t, const Shape& out) {
  const int lead = out.size() - t.dim();
  STRATA_CHECK(lead >= 0, "broadcast: a tensor of shape ", t.shape().str(), " does not broadcast to ", out.str());
  Shape strides;
  strides.resize(out.size());
  for (int d = 0; d < out.size(); ++d) {
    const int td = d - lead;
    strides[d] = (td < 0 || t.shape()[td] == 1) ? 0 : t.strides()[td];
  }
  return strides;
}

}  // namespace strata::dispatch
