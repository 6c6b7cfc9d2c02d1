#include <gtest/gtest.h>

#include "ops/sliding_window_reference.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

using testing::Dims;
using testing::nhwc;
using testing::RefWindow;

Tensor conv_n(const Tensor& x, const Tensor& w, const Tensor& b, const ConvOptions& o) {
  switch (x.dim()) {
    case 3: return conv1d(x, w, b, o);
    case 4: return conv2d(x, w, b, o);
    default: return conv3d(x, w, b, o);
  }
}

Tensor conv_transpose_n(const Tensor& x, const Tensor& w, const Tensor& b, const ConvOptions& o) {
  switch (x.dim()) {
    case 3: return conv_transpose1d(x, w, b, o);
    case 4: return conv_transpose2d(x, w, b, o);
    default: return conv_transpose3d(x, w, b, o);
  }
}

struct ConvCase {
  Dims spatial;  // of x
  int64_t N, C, O;
  Dims kernel, stride, dilation;
  bool same;
  int64_t groups = 1;
  bool bias = true;
};

// Weights [k..., i, o].
Shape kio(const Dims& kernel, int64_t i, int64_t o) {
  Shape s(kernel);
  s.push_back(i);
  s.push_back(o);
  return s;
}

std::vector<double> values(const Tensor& t) { return t.defined() ? t.to_vector<double>() : std::vector<double>{}; }

ConvOptions options_of(const ConvCase& c) {
  return {.stride = c.stride, .padding = c.same ? Padding::same() : Padding::valid(), .dilation = c.dilation,
          .groups = c.groups};
}

void check_conv(const ConvCase& c, bool noncontiguous_x = false) {
  Generator gen(7);
  Tensor x = uniform(nhwc(c.N, c.spatial, c.C), -1, 1, kFloat32, &gen);
  if (noncontiguous_x) x = transpose(transpose(x, 0, 1).contiguous(), 0, 1);
  Tensor w = uniform(kio(c.kernel, c.C / c.groups, c.O), -1, 1, kFloat32, &gen);
  Tensor b = c.bias ? uniform({c.O}, -1, 1, kFloat32, &gen) : Tensor();
  Tensor y = conv_n(x, w, b, options_of(c));
  RefWindow win = testing::ref_window(c.spatial, c.kernel, c.stride, c.dilation, c.same);
  EXPECT_EQ(y.shape(), nhwc(c.N, win.out, c.O));
  EXPECT_EQ(y.dtype(), kFloat32);
  testing::expect_close(y, testing::ref_conv(values(x), c.N, c.C, values(w), c.O, values(b), win, c.groups), 1e-4);
}

TEST(ConvTest, Conv2dValidMatchesLoops) { check_conv({{7, 6}, 2, 3, 4, {3, 3}, {1, 1}, {1, 1}, false}); }
TEST(ConvTest, Conv2dSameStridedMatchesLoops) {
  check_conv({{7, 8}, 2, 3, 5, {3, 3}, {2, 2}, {1, 1}, true, 1, false});
  check_conv({{6, 9}, 1, 4, 4, {4, 2}, {3, 2}, {1, 1}, true});  // even kernel: extra pad at the end
}
TEST(ConvTest, Conv2dDilatedMatchesLoops) {
  check_conv({{9, 8}, 2, 3, 4, {3, 3}, {1, 1}, {2, 3}, true});
  check_conv({{9, 8}, 1, 2, 3, {2, 3}, {2, 1}, {2, 2}, false});
}
TEST(ConvTest, Conv2dGroupsMatchLoops) {
  check_conv({{6, 6}, 2, 4, 6, {3, 3}, {1, 1}, {1, 1}, true, 2});
  check_conv({{5, 7}, 2, 8, 8, {3, 3}, {2, 2}, {1, 1}, true, 8});  // depthwise
}
TEST(ConvTest, Conv2dNonContiguousInput) { check_conv({{6, 5}, 3, 3, 4, {3, 3}, {1, 1}, {1, 1}, true}, true); }
TEST(ConvTest, Conv1dMatchesLoops) {
  check_conv({{11}, 2, 3, 4, {3}, {2}, {1}, true});
  check_conv({{11}, 2, 4, 2, {4}, {1}, {2}, false, 2});
}
TEST(ConvTest, Conv3dMatchesLoops) {
  check_conv({{5, 6, 4}, 2, 3, 4, {3, 3, 2}, {1, 2, 1}, {1, 1, 1}, true});
  check_conv({{5, 6, 5}, 1, 2, 3, {2, 3, 2}, {2, 1, 1}, {1, 1, 2}, false});
}

TEST(ConvTest, DefaultsAreStrideOneValid) {
  Tensor x = ones({1, 5, 5, 2}), w = ones({3, 3, 2, 1});
  Tensor y = conv2d(x, w);
  EXPECT_EQ(y.shape(), Shape({1, 3, 3, 1}));
  for (double v : y.to_vector<double>()) EXPECT_DOUBLE_EQ(v, 18.0);
}

TEST(ConvTest, ExplicitPaddingMatchesLoops) {
  Generator gen(3);
  Tensor x = uniform({2, 5, 6, 3}, -1, 1, kFloat32, &gen), w = uniform({3, 2, 3, 4}, -1, 1, kFloat32, &gen);
  Tensor y = conv2d(x, w, Tensor(), {.stride = {2, 1}, .padding = Padding::explicit_({1, 0}, {2, 1})});
  RefWindow win{{5, 6}, {3, 2}, {2, 1}, {1, 1}, {1, 0}, {(5 + 3 - 3) / 2 + 1, (6 + 1 - 2) + 1}};
  EXPECT_EQ(y.shape(), Shape({2, win.out[0], win.out[1], 4}));
  testing::expect_close(y, testing::ref_conv(values(x), 2, 3, values(w), 4, {}, win, 1), 1e-4);
}

// The output sizes of Keras's Conv2DTranspose (no output_padding): SAME in * stride, VALID
// (in - 1) * stride + k; and the values of the scatter that defines the transposed convolution.
void check_conv_transpose(const ConvCase& c) {
  Generator gen(11);
  Tensor x = uniform(nhwc(c.N, c.spatial, c.C), -1, 1, kFloat32, &gen);
  Tensor w = uniform(kio(c.kernel, c.O / c.groups, c.C), -1, 1, kFloat32, &gen);
  Tensor b = c.bias ? uniform({c.O}, -1, 1, kFloat32, &gen) : Tensor();
  Tensor y = conv_transpose_n(x, w, b, options_of(c));
  RefWindow win;
  win.out = c.spatial;
  win.kernel = c.kernel;
  win.stride = c.stride;
  win.dilation = c.dilation;
  for (size_t a = 0; a < c.spatial.size(); ++a) {
    const int64_t k = (c.kernel[a] - 1) * c.dilation[a] + 1;
    win.in.push_back(c.same ? c.spatial[a] * c.stride[a] : (c.spatial[a] - 1) * c.stride[a] + k);
    win.pad_before.push_back(c.same ? std::max<int64_t>(k - c.stride[a], 0) / 2 : 0);
  }
  EXPECT_EQ(y.shape(), nhwc(c.N, win.in, c.O));
  testing::expect_close(y, testing::ref_conv_transpose(values(x), c.N, c.C, values(w), c.O, values(b), win, c.groups),
                        1e-4);
}

TEST(ConvTest, ConvTranspose2dMatchesScatter) {
  check_conv_transpose({{4, 5}, 2, 3, 4, {3, 3}, {2, 2}, {1, 1}, true});
  check_conv_transpose({{4, 3}, 2, 3, 2, {3, 2}, {2, 3}, {1, 1}, false});
  check_conv_transpose({{3, 4}, 1, 4, 6, {4, 4}, {2, 2}, {1, 1}, true, 2, false});
  check_conv_transpose({{3, 3}, 1, 2, 3, {2, 2}, {3, 3}, {1, 1}, true});  // kernel smaller than stride
}
TEST(ConvTest, ConvTranspose1dAnd3dMatchScatter) {
  check_conv_transpose({{6}, 2, 3, 4, {3}, {2}, {1}, true});
  check_conv_transpose({{5}, 1, 2, 2, {3}, {1}, {2}, false});
  check_conv_transpose({{2, 3, 2}, 1, 3, 2, {3, 2, 2}, {2, 1, 2}, {1, 1, 1}, true});
}

TEST(ConvTest, ConvTransposeIsTheAdjointOfConv) {
  // <conv(a, w), b> == <conv_transpose(b, w), a> when the transposed output has a's shape.
  Generator gen(2);
  Tensor a = uniform({2, 8, 8, 3}, -1, 1, kFloat64, &gen), w = uniform({3, 3, 3, 5}, -1, 1, kFloat64, &gen);
  ConvOptions o{.stride = {2}, .padding = Padding::same()};
  Tensor y = conv2d(a, w, Tensor(), o);
  Tensor bb = uniform(y.shape(), -1, 1, kFloat64, &gen);
  Tensor t = conv_transpose2d(bb, w, Tensor(), o);
  ASSERT_EQ(t.shape(), a.shape());
  EXPECT_NEAR(sum(y * bb).item<double>(), sum(t * a).item<double>(), 1e-9);
}

// Backward through oneDNN (float32) against the plain loops (float64) on the same data.
TEST(ConvTest, Conv2dBackwardF32MatchesF64) {
  Generator gen(4);
  std::vector<Tensor> in = {uniform({2, 7, 6, 4}, -1, 1, kFloat64, &gen), uniform({3, 3, 2, 6}, -1, 1, kFloat64, &gen),
                            uniform({6}, -1, 1, kFloat64, &gen)};
  testing::expect_f32_backward_matches_f64(
      [](const std::vector<Tensor>& t) {
        return conv2d(t[0], t[1], t[2], {.stride = {2, 1}, .padding = Padding::same(), .dilation = {1, 2}, .groups = 2});
      },
      in);
  testing::expect_f32_backward_matches_f64(
      [](const std::vector<Tensor>& t) { return conv2d(t[0], t[1].narrow(2, 0, 2), t[2]); },
      {uniform({2, 5, 5, 2}, -1, 1, kFloat64, &gen), in[1], in[2]});
}
TEST(ConvTest, Conv1dAnd3dBackwardF32MatchesF64) {
  Generator gen(5);
  testing::expect_f32_backward_matches_f64(
      [](const std::vector<Tensor>& t) { return conv1d(t[0], t[1], t[2], {.stride = {2}, .padding = Padding::same()}); },
      {uniform({2, 9, 3}, -1, 1, kFloat64, &gen), uniform({3, 3, 4}, -1, 1, kFloat64, &gen),
       uniform({4}, -1, 1, kFloat64, &gen)});
  testing::expect_f32_backward_matches_f64(
      [](const std::vector<Tensor>& t) { return conv3d(t[0], t[1], t[2], {.padding = Padding::same()}); },
      {uniform({1, 4, 5, 3, 2}, -1, 1, kFloat64, &gen), uniform({2, 3, 2, 2, 3}, -1, 1, kFloat64, &gen),
       uniform({3}, -1, 1, kFloat64, &gen)});
}
TEST(ConvTest, ConvTransposeBackwardF32MatchesF64) {
  Generator gen(6);
  testing::expect_f32_backward_matches_f64(
      [](const std::vector<Tensor>& t) {
        return conv_transpose2d(t[0], t[1], t[2], {.stride = {2}, .padding = Padding::same()});
      },
      {uniform({2, 4, 3, 3}, -1, 1, kFloat64, &gen), uniform({3, 3, 5, 3}, -1, 1, kFloat64, &gen),
       uniform({5}, -1, 1, kFloat64, &gen)});
  testing::expect_f32_backward_matches_f64(
      [](const std::vector<Tensor>& t) { return conv_transpose1d(t[0], t[1], t[2], {.stride = {3}}); },
      {uniform({2, 4, 2}, -1, 1, kFloat64, &gen), uniform({2, 3, 2}, -1, 1, kFloat64, &gen),
       uniform({3}, -1, 1, kFloat64, &gen)});
}

TEST(ConvTest, ErrorsNameTheOpAndShapes) {
  using testing::expect_error;
  Tensor x = zeros({1, 4, 4, 3}), w = zeros({3, 3, 3, 8});
  expect_error([&] { conv2d(zeros({4, 4, 3}), w); }, {"conv2d", "rank 4", "[4, 4, 3]"});
  expect_error([&] { conv2d(x, zeros({3, 3, 8})); }, {"conv2d", "weights", "[3, 3, 8]"});
  expect_error([&] { conv2d(x, zeros({3, 3, 2, 8})); }, {"conv2d", "channels", "[1, 4, 4, 3]", "[3, 3, 2, 8]"});
  expect_error([&] { conv2d(x, zeros({3, 3, 1, 8}), Tensor(), {.groups = 2}); },
                        {"conv2d", "groups (2)", "[1, 4, 4, 3]"});
  expect_error([&] { conv2d(x, zeros({5, 5, 3, 8})); }, {"conv2d", "kernel", "larger", "[1, 4, 4, 3]"});
  expect_error([&] { conv2d(x, w, zeros({7})); }, {"conv2d", "bias", "[7]"});
  expect_error([&] { conv2d(x, w, Tensor(), {.stride = {1, 1, 1}}); }, {"conv2d", "stride"});
  expect_error([&] { conv2d(x, zeros({3, 3, 3, 8}, kFloat64)); }, {"conv2d", "float64", "float32"});
  expect_error([&] { conv1d(x, w); }, {"conv1d", "rank 3"});
  expect_error([&] { conv_transpose2d(x, zeros({3, 3, 8, 4})); }, {"conv_transpose2d", "[3, 3, 8, 4]"});
  // A SAME convolution with a kernel larger than the input is fine (TensorFlow pads it).
  EXPECT_EQ(conv2d(x, zeros({5, 5, 3, 8}), Tensor(), {.padding = Padding::same()}).shape(), Shape({1, 4, 4, 8}));
}

// float32 runs the relu as a oneDNN post-op; it must give what relu(conv2d) gives, gradients
// included (float64, the reference path, is checked against finite differences by the
// conformance table).
TEST(ConvTest, FusedReluMatchesReluOfConv) {
  Tensor x = randn({2, 9, 9, 3}).requires_grad_(), w = randn({5, 5, 3, 8}).requires_grad_(),
         b = randn({8}).requires_grad_();
  const ConvOptions plain{.padding = Padding::same()};
  ConvOptions fused = plain;
  fused.fuse_relu = true;
  Tensor want = relu(conv2d(x, w, b, plain));
  Tensor got = conv2d(x, w, b, fused);
  EXPECT_TRUE(allclose(got, want, 0, 0));
  Tensor g = randn(want.shape());
  const auto want_grads = autograd::grad({sum(want * g)}, {x, w, b});
  const auto got_grads = autograd::grad({sum(got * g)}, {x, w, b});
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(allclose(got_grads[i], want_grads[i], 1e-6, 1e-6)) << i;
  EXPECT_THROW(conv_transpose2d(x, w.transpose(2, 3), Tensor(), fused), Error);
}

}  // namespace
}  // namespace strata
