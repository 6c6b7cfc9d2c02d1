// The geometry of a sliding window over the spatial axes of a channels-last tensor, shared by
// the convolution and pooling kernel families of every backend. Always three axes: a 1-D or 2-D
// window has leading axes of size 1 (kernel 1, stride 1, no padding), so one loop nest serves
// every rank; `nsp` says how many trailing axes are real.
#pragma once
#include <array>
#include <cstdint>

#include "strata/core/shape.hpp"

namespace strata::dispatch {

struct Window {
  using Axes = std::array<int64_t, 3>;
  int nsp = 0;  // real spatial axes: 1, 2 or 3
  int64_t batch = 0;
  Axes in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1}, stride{1, 1, 1}, dilation{1, 1, 1};
  Axes pad_before{0, 0, 0}, pad_after{0, 0, 0};

  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  int64_t kernel_size() const { return kernel[0] * kernel[1] * kernel[2]; }
  int64_t dilated_kernel(int a) const { return (kernel[a] - 1) * dilation[a] + 1; }
  // [batch, spatial..., channels] for the real axes of `spatial` (in or out).
  Shape activation_shape(const Axes& spatial, int64_t channels) const {
    Shape s{batch};
    for (int i = 3 - nsp; i < 3; ++i) s.push_back(spatial[i]);
    s.push_back(channels);
    return s;
  }
};

struct ConvGeometry {
  Window win;
  int64_t in_channels = 0, out_channels = 0, groups = 1;
  bool relu = false;  // conv_forward only: relu applied to the output in the same pass
  // The weights' shape, [k..., C / groups, O].
  Shape weights_shape() const {
    Shape s;
    for (int i = 3 - win.nsp; i < 3; ++i) s.push_back(win.kernel[i]);
    s.push_back(in_channels / groups);
    s.push_back(out_channels);
    return s;
  }
};

struct PoolGeometry {
  Window win;
  int64_t channels = 0;
  bool max = true;  // false: average
};

}  // namespace strata::dispatch
