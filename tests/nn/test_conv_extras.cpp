#include <gtest/gtest.h>

#include <cmath>

#include "nn/layer_check.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;
using testing_nn::expect_gradcheck;
using testing_nn::expect_same_as;

double at(const Tensor& t, std::initializer_list<int64_t> idx) {
  std::vector<int64_t> i(idx);
  Tensor s = t;
  for (int64_t v : i) s = select(s, 0, v);
  return s.item<double>();
}

TEST(ConvExtrasTest, DeConv1dAndExplicitShapeFormsWrapTheOps) {
  nn::DeConv1d de(4, {3});
  Tensor x = randn({2, 5, 3});
  EXPECT_EQ(de(x).shape(), Shape({2, 10, 4}));
  EXPECT_EQ(de.W.shape(), Shape({3, 4, 3}));  // [k, n_filter, in]
  testing_nn::randomize(de);
  expect_same_as([&](const Tensor& t) { return de(t); },
                 [&](const Tensor& t) { return conv_transpose1d(t, de.W, de.b, nn::same_padding(2)); }, x,
                 {de.W, de.b}, 1e-4);
  nn::Conv2dLayer c2({3, 3, 2, 5});
  EXPECT_EQ(c2(randn({1, 4, 4, 2})).shape(), Shape({1, 4, 4, 5}));
  EXPECT_EQ(c2.W.shape(), Shape({3, 3, 2, 5}));
  expect_error([&] { c2(randn({1, 4, 4, 3})); }, {"C = 2", "[1, 4, 4, 3]"});
  nn::DeConv2dLayer d2({3, 3, 6, 2});  // [kh, kw, out, in]
  EXPECT_EQ(d2(randn({1, 4, 4, 2})).shape(), Shape({1, 8, 8, 6}));
  expect_error([] { nn::Conv3dLayer({3, 3, 2}); }, {"conv3dlayer", "5 values"});
}

TEST(ConvExtrasTest, SeparableConv1dIsDepthwiseThenPointwise) {
  nn::SeparableConv1d sep(4, {3}, {}, {}, /*depth_multiplier=*/2);
  Tensor x = randn({2, 6, 3});
  EXPECT_EQ(sep(x).shape(), Shape({2, 4, 4}));
  EXPECT_EQ(sep.depthwise_W.shape(), Shape({3, 3, 2}));
  EXPECT_EQ(sep.pointwise_W.shape(), Shape({1, 6, 4}));
  testing_nn::randomize(sep);
  auto reference = [&](const Tensor& t) {
    std::vector<Tensor> outs;  // channel c * M + m = input c convolved with w[:, c, m]
    for (int64_t c = 0; c < 3; ++c)
      outs.push_back(conv1d(slice(t, 2, c, c + 1), slice(sep.depthwise_W, 1, c, c + 1)));
    return conv1d(concat(outs, 2), sep.pointwise_W, sep.b);
  };
  expect_same_as([&](const Tensor& t) { return sep(t); }, reference, x, {sep.depthwise_W, sep.pointwise_W, sep.b},
                 1e-4);
}

TEST(ConvExtrasTest, CornerPoolMatchesLoop) {
  Tensor x = randn({1, 4, 5, 2}, kFloat64);
  Tensor y = nn::corner_pool2d(x, nn::Corner::top_left);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 5; ++j)
      for (int64_t c = 0; c < 2; ++c) {
        double down = -1e300, right = -1e300;
        for (int64_t k = i; k < 4; ++k) down = std::max(down, at(x, {0, k, j, c}));
        for (int64_t k = j; k < 5; ++k) right = std::max(right, at(x, {0, i, k, c}));
        ASSERT_NEAR(at(y, {0, i, j, c}), down + right, 1e-12);
      }
  // BottomRight looks up and left: the flipped image's TopLeft, flipped back.
  Tensor br = nn::CornerPool2d("BottomRight")(x);
  EXPECT_TRUE(allclose(br, flip(nn::corner_pool2d(flip(x, {1, 2}), nn::Corner::top_left), {1, 2})));
  expect_error([] { nn::CornerPool2d("Middle"); }, {"TopLeft", "Middle"});
  expect_gradcheck([](const std::vector<Tensor>& v) { return nn::corner_pool2d(v[0], nn::Corner::top_right); },
                   {randn({1, 3, 3, 2}, kFloat64)});
}

TEST(ConvExtrasTest, UnfoldTimesWeightIsConvAndFoldIsItsAdjoint) {
  Tensor x = randn({2, 6, 5, 3}, kFloat64), w = randn({3, 2, 3, 4}, kFloat64);
  for (ConvOptions o : {ConvOptions{}, ConvOptions{.stride = {2}, .padding = Padding::same()},
                        ConvOptions{.stride = {1, 2}, .padding = Padding::explicit_({1}, {2}), .dilation = {2, 1}}}) {
    Tensor p = nn::unfold2d(x, {3, 2}, o);
    Tensor conv = conv2d(x, w, Tensor(), o);
    ASSERT_EQ(p.shape(), Shape({2, conv.size(1), conv.size(2), 18}));
    EXPECT_TRUE(allclose(linear(p, reshape(w, {18, 4})), conv, 1e-10, 1e-10));
    Tensor q = randn(p.shape(), kFloat64);
    Tensor folded = nn::fold2d(q, {6, 5}, {3, 2}, o);
    ASSERT_EQ(folded.shape(), x.shape());
    // <unfold(x), q> = <x, fold(q)>
    EXPECT_NEAR(sum(p * q).item<double>(), sum(x * folded).item<double>(), 1e-9);
  }
  nn::Fold fold({4, 4}, {2}, {.stride = {2}});
  nn::Unfold unfold({2}, {.stride = {2}});
  Tensor img = randn({1, 4, 4, 2});
  EXPECT_TRUE(allclose(fold(unfold(img)), img));  // non-overlapping windows: fold undoes unfold
  expect_error([&] { fold(randn({1, 3, 3, 8})); }, {"fold2d", "[N, 2, 2, 4 * C]"});
  expect_gradcheck([](const std::vector<Tensor>& v) { return nn::fold2d(v[0], {4, 4}, {2}, {}); },
                   {randn({1, 3, 3, 8}, kFloat64)});
}

// Deformable convolution by a direct loop: bilinear interpolation with zeros outside.
Tensor deform_reference(const Tensor& x, const Tensor& off, const Tensor& w, int64_t pad) {
  const int64_t n = x.size(0), h = x.size(1), wd = x.size(2), c = x.size(3), kh = w.size(0), kw = w.size(1),
                o = w.size(3), oh = off.size(1), ow = off.size(2);
  auto pixel = [&](int64_t b, int64_t i, int64_t j, int64_t ch) {
    return i < 0 || j < 0 || i >= h || j >= wd ? 0.0 : at(x, {b, i, j, ch});
  };
  std::vector<double> out(n * oh * ow * o, 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t xx = 0; xx < ow; ++xx)
        for (int64_t i = 0; i < kh; ++i)
          for (int64_t j = 0; j < kw; ++j) {
            const int64_t t = i * kw + j;
            const double py = y - pad + i + at(off, {b, y, xx, 2 * t}), px = xx - pad + j + at(off, {b, y, xx, 2 * t + 1});
            const double fy = std::floor(py), fx = std::floor(px), ty = py - fy, tx = px - fx;
            for (int64_t ch = 0; ch < c; ++ch) {
              const auto y0 = static_cast<int64_t>(fy), x0 = static_cast<int64_t>(fx);
              const double v = pixel(b, y0, x0, ch) * (1 - ty) * (1 - tx) + pixel(b, y0, x0 + 1, ch) * (1 - ty) * tx +
                               pixel(b, y0 + 1, x0, ch) * ty * (1 - tx) + pixel(b, y0 + 1, x0 + 1, ch) * ty * tx;
              for (int64_t oc = 0; oc < o; ++oc) out[((b * oh + y) * ow + xx) * o + oc] += v * at(w, {i, j, ch, oc});
            }
          }
  return from_vector(out, {n, oh, ow, o});
}

TEST(ConvExtrasTest, DeformableConv2dMatchesLoopAndConvAtZeroOffsets) {
  Tensor x = randn({2, 4, 5, 2}, kFloat64), w = randn({3, 3, 2, 3}, kFloat64);
  const ConvOptions same{.padding = Padding::same()};
  Tensor zero = zeros({2, 4, 5, 18}, kFloat64);
  EXPECT_TRUE(allclose(nn::deform_conv2d(x, zero, w, Tensor(), same), conv2d(x, w, Tensor(), same), 1e-10, 1e-10));
  Tensor off = uniform({2, 4, 5, 18}, -2.0, 2.0, kFloat64);
  EXPECT_TRUE(allclose(nn::deform_conv2d(x, off, w, Tensor(), same), deform_reference(x, off, w, 1), 1e-10, 1e-10));
  expect_gradcheck([&](const std::vector<Tensor>& v) { return nn::deform_conv2d(v[0], v[1], v[2], v[3], same); },
                   {randn({1, 3, 3, 2}, kFloat64), uniform({1, 3, 3, 8}, -0.9, 0.9, kFloat64),
                    randn({2, 2, 2, 2}, kFloat64), randn({2}, kFloat64)});
  nn::Conv2d offsets(18, {3, 3});
  nn::DeformableConv2d dc(4);
  Tensor xf = randn({1, 5, 5, 2});
  Tensor y = dc({xf, offsets(xf)});
  EXPECT_EQ(y.shape(), Shape({1, 5, 5, 4}));
  EXPECT_EQ(dc.W.shape(), Shape({1, 1, 9, 2, 4}));  // TensorLayer's
  expect_error([&] { dc(xf); }, {"deformableconv2d", "two inputs"});
  expect_error([&] { dc({xf, randn({1, 5, 5, 8})}); }, {"offset [1, 5, 5, 18]"});
}

TEST(ConvExtrasTest, SpatialTransformerIdentityAndShift) {
  Tensor x = randn({2, 4, 6, 3}, kFloat64);
  Tensor identity = tensor({1.0, 0.0, 0.0, 0.0, 1.0, 0.0}, {1, 6});
  Tensor theta = concat({identity, identity}, 0);
  EXPECT_TRUE(allclose(nn::affine_transform2d(x, theta, 4, 6), x, 1e-12, 1e-12));
  // A translation by one pixel to the right in x: 2 / W in normalised units.
  Tensor shift = tensor({1.0, 0.0, 2.0 / 6, 0.0, 1.0, 0.0}, {1, 6});
  Tensor y = nn::affine_transform2d(slice(x, 0, 0, 1), shift, 4, 6);
  EXPECT_TRUE(allclose(slice(y, 2, 0, 5), slice(slice(x, 0, 0, 1), 2, 1, 6), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(select(y, 2, 5), zeros({1, 4, 3}, kFloat64)));
  expect_gradcheck([](const std::vector<Tensor>& v) { return nn::affine_transform2d(v[0], v[1], 3, 2); },
                   {randn({1, 3, 3, 2}, kFloat64), tensor({0.9, 0.1, 0.05, -0.1, 0.8, 0.1}, {1, 6})});
  nn::SpatialTransformer2dAffine stn({3, 3});
  Tensor y2 = stn({randn({2, 5}), randn({2, 6, 6, 2})});
  EXPECT_EQ(y2.shape(), Shape({2, 3, 3, 2}));
  EXPECT_EQ(stn.W.shape(), Shape({5, 6}));
  Tensor loss = sum(stn({randn({2, 5}), randn({2, 6, 6, 2})}));
  loss.backward();
  EXPECT_TRUE(stn.W.grad().defined());
}

}  // namespace
}  // namespace strata
