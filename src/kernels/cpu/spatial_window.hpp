// Walking a sliding window (strata/dispatch/window.hpp) in the CPU's convolution and pooling
// loops.
#pragma once
#include <cstdint>

#include "strata/dispatch/window.hpp"

namespace strata::kernels::cpu {

using dispatch::ConvGeometry;
using dispatch::PoolGeometry;
using dispatch::Window;

// Visits every (output position, kernel tap) pair whose input position lies inside the input:
// fn(out_index, in_index, tap_index), flat indices over one sample's spatial axes, the taps of
// one output visited together.
template <class F>
void for_each_tap(const Window& w, F&& fn) {
  for (int64_t o0 = 0; o0 < w.out[0]; ++o0)
    for (int64_t o1 = 0; o1 < w.out[1]; ++o1)
      for (int64_t o2 = 0; o2 < w.out[2]; ++o2) {
        const int64_t out_index = (o0 * w.out[1] + o1) * w.out[2] + o2;
        for (int64_t k0 = 0; k0 < w.kernel[0]; ++k0) {
          const int64_t i0 = o0 * w.stride[0] - w.pad_before[0] + k0 * w.dilation[0];
          if (i0 < 0 || i0 >= w.in[0]) continue;
          for (int64_t k1 = 0; k1 < w.kernel[1]; ++k1) {
            const int64_t i1 = o1 * w.stride[1] - w.pad_before[1] + k1 * w.dilation[1];
            if (i1 < 0 || i1 >= w.in[1]) continue;
            for (int64_t k2 = 0; k2 < w.kernel[2]; ++k2) {
              const int64_t i2 = o2 * w.stride[2] - w.pad_before[2] + k2 * w.dilation[2];
              if (i2 < 0 || i2 >= w.in[2]) continue;
              fn(out_index, (i0 * w.in[1] + i1) * w.in[2] + i2, (k0 * w.kernel[1] + k1) * w.kernel[2] + k2);
            }
          }
        }
      }
}

}  // namespace strata::kernels::cpu
