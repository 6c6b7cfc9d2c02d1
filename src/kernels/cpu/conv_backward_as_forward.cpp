#include "kernels/cpu/conv_backward_as_forward.hpp"

#include <utility>

namespace strata::kernels::cpu {

bool backward_data_runs_forward(const ConvGeometry& g) {
  if (g.groups != 1) return false;
  for (int a = 0; a < 3; ++a)
    if (g.win.stride[a] != 1 || g.win.dilation[a] != 1 || g.win.pad_before[a] > g.win.kernel[a] - 1 ||
        g.win.pad_after[a] > g.win.kernel[a] - 1)
      return false;
  return true;
}

ConvGeometry backward_data_as_forward(const ConvGeometry& g) {
  ConvGeometry t = g;
  t.relu = false;
  std::swap(t.in_channels, t.out_channels);
  std::swap(t.win.in, t.win.out);
  for (int a = 0; a < 3; ++a) {
    t.win.pad_before[a] = g.win.kernel[a] - 1 - g.win.pad_before[a];
    t.win.pad_after[a] = g.win.kernel[a] - 1 - g.win.pad_after[a];
  }
  return t;
}

// Flipping every spatial axis of a row-major kernel reverses its flat position index.
Tensor flipped_transposed_weights(const Tensor& w, const ConvGeometry& g) {
  Tensor wt = Tensor::empty(backward_data_as_forward(g).weights_shape(), w.dtype(), w.device());
  flip_transpose_weights(w.data<float>(), g, wt.data<float>());
  return wt;
}

void flip_transpose_weights(const float* src, const ConvGeometry& g, float* dst) {
  const int64_t C = g.in_channels, O = g.out_channels, positions = g.win.kernel_size();
  for (int64_t p = 0; p < positions; ++p) {
    const float* from = src + (positions - 1 - p) * C * O;
    float* to = dst + p * O * C;
    for (int64_t c = 0; c < C; ++c)
      for (int64_t o = 0; o < O; ++o) to[o * C + c] = from[c * O + o];
  }
}

}  // namespace strata::kernels::cpu
