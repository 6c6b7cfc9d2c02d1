// conv_backward_data runs stride-1, undilated, ungrouped geometries as a forward convolution of
// dy with flipped, transposed weights (src/kernels/cpu/conv_backward_as_forward.hpp). The input
// gradients of those geometries, in float32 through that path, against the float64 loops; the
// kernels and paddings cover odd and even, square and not, "same" (asymmetric for even kernels),
// valid, explicit and full (k-1) paddings, 1-3 spatial axes and the transposed convolutions whose
// forward is that pass.
#include <gtest/gtest.h>

#include "ops/sliding_window_reference.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

using testing::expect_f32_backward_matches_f64;

// x, w and a bias of `bias` values (default: a convolution's, w's last axis).
std::vector<Tensor> bwd_as_fwd_inputs(const Shape& x, const Shape& w, Generator& gen, int64_t bias = -1) {
  return {uniform(x, -1, 1, kFloat64, &gen), uniform(w, -1, 1, kFloat64, &gen),
          uniform({bias < 0 ? w.back() : bias}, -1, 1, kFloat64, &gen)};
}

TEST(ConvBackwardAsForward, Conv2dPaddingsMatchFloat64) {
  Generator gen(11);
  const std::vector<std::pair<Padding, Shape>> cases = {
      {Padding::same(), {5, 5, 3, 6}},                     // the CNNs' 5x5 "same"
      {Padding::same(), {4, 2, 3, 5}},                     // even kernels: one more row/column after than before
      {Padding::valid(), {3, 2, 3, 4}},                    // no padding: the flipped pass pads k-1
      {Padding::explicit_({2, 1}, {0, 1}), {3, 3, 3, 4}},  // full padding before (k-1), none after
  };
  for (const auto& [pad, wshape] : cases) {
    SCOPED_TRACE("w " + wshape.str());
    expect_f32_backward_matches_f64(
        [pad = pad](const std::vector<Tensor>& t) { return conv2d(t[0], t[1], t[2], {.padding = pad}); },
        bwd_as_fwd_inputs({2, 7, 6, 3}, wshape, gen));
  }
}

TEST(ConvBackwardAsForward, Conv1dAnd3dAndRelu) {
  Generator gen(12);
  expect_f32_backward_matches_f64(
      [](const std::vector<Tensor>& t) { return conv1d(t[0], t[1], t[2], {.padding = Padding::same()}); },
      bwd_as_fwd_inputs({3, 9, 4}, {4, 4, 5}, gen));
  expect_f32_backward_matches_f64([](const std::vector<Tensor>& t) { return conv3d(t[0], t[1], t[2]); },
                                  bwd_as_fwd_inputs({1, 5, 4, 6, 2}, {3, 2, 3, 2, 3}, gen));
  // With the relu fused into the forward, as the nn layers run it.
  expect_f32_backward_matches_f64(
      [](const std::vector<Tensor>& t) {
        return conv2d(t[0], t[1], t[2], {.padding = Padding::same(), .fuse_relu = true});
      },
      bwd_as_fwd_inputs({2, 8, 8, 4}, {5, 5, 4, 8}, gen));
}

TEST(ConvBackwardAsForward, TransposedConvolutionsMatchFloat64) {
  Generator gen(13);
  expect_f32_backward_matches_f64(
      [](const std::vector<Tensor>& t) { return conv_transpose2d(t[0], t[1], t[2], {.padding = Padding::same()}); },
      bwd_as_fwd_inputs({2, 5, 4, 3}, {3, 3, 5, 3}, gen, 5));
  expect_f32_backward_matches_f64([](const std::vector<Tensor>& t) { return conv_transpose1d(t[0], t[1], t[2]); },
                                  bwd_as_fwd_inputs({2, 6, 3}, {4, 2, 3}, gen, 2));
}

}  // namespace
}  // namespace strata
