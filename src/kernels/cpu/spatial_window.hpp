// The geometry of a sliding window over the spatial axes of a channels-last tensor, shared by
// the convolution and pooling kernels. Always three axes: a 1-D or 2-D window has leading axes
// of size 1 (kernel 1, stride 1, no padding), so one loop nest serves every rank; `nsp` says how
// many trailing axes are real (what oneDNN is told).
#pragma once
#include <array>
#include <cstdint>

namespace strata::kernels::cpu {

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
};

struct ConvGeometry {
  Window win;
  int64_t in_channels = 0, out_channels = 0, groups = 1;
  bool relu = false;  // conv_forward only: relu applied to the output in the same pass
};

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
