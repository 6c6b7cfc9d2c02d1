#include <gtest/gtest.h>

#include "nn/layer_check.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;
using testing_nn::expect_gradcheck;
using testing_nn::expect_same_as;

// Depthwise convolution written channel by channel: output channel c * M + m is input channel
// c convolved with w[:, :, c, m] (TensorFlow's order).
Tensor depthwise_reference(const Tensor& x, const Tensor& w, const ConvOptions& options) {
  std::vector<Tensor> outs;
  for (int64_t c = 0; c < x.size(3); ++c)
    outs.push_back(conv2d(slice(x, 3, c, c + 1), slice(w, 2, c, c + 1), Tensor(), options));
  return concat(outs, 3);
}

TEST(DepthwiseTest, DepthwiseConv2dKeepsTensorFlowsChannelOrder) {
  nn::DepthwiseConv2d dw({3, 3}, {}, nn::same_padding(), /*depth_multiplier=*/2);
  Tensor x = randn({2, 4, 4, 3});
  EXPECT_EQ(dw(x).shape(), Shape({2, 4, 4, 6}));
  EXPECT_EQ(dw.W.shape(), Shape({3, 3, 3, 2}));  // [kh, kw, in, depth_multiplier]
  EXPECT_EQ(dw.b.shape(), Shape({6}));
  testing_nn::randomize(dw);
  const ConvOptions same = nn::same_padding();
  expect_same_as([&](const Tensor& t) { return dw(t); },
                 [&](const Tensor& t) { return depthwise_reference(t, dw.W, same) + dw.b; }, x, {dw.W, dw.b}, 1e-4);
  expect_gradcheck([](const std::vector<Tensor>& v) { return nn::depthwise_conv2d(v[0], v[1], v[2]); },
                   {randn({1, 3, 3, 2}, kFloat64), randn({2, 2, 2, 2}, kFloat64), randn({4}, kFloat64)});
}

TEST(DepthwiseTest, SeparableConv2dIsDepthwiseThenPointwise) {
  nn::SeparableConv2d sep(4);  // 3x3, VALID as TensorLayer's
  Tensor x = randn({2, 5, 5, 3});
  EXPECT_EQ(sep(x).shape(), Shape({2, 3, 3, 4}));
  EXPECT_EQ(sep.depthwise_W.shape(), Shape({3, 3, 3, 1}));
  EXPECT_EQ(sep.pointwise_W.shape(), Shape({1, 1, 3, 4}));
  EXPECT_EQ(sep.b.shape(), Shape({4}));
  testing_nn::randomize(sep);
  expect_same_as(
      [&](const Tensor& t) { return sep(t); },
      [&](const Tensor& t) { return conv2d(depthwise_reference(t, sep.depthwise_W, {}), sep.pointwise_W, sep.b); }, x,
      {sep.depthwise_W, sep.pointwise_W, sep.b}, 1e-4);
}

TEST(DepthwiseTest, GroupConv2dConvolvesEachGroupSeparately) {
  nn::GroupConv2d gc(4, {3, 3}, /*n_group=*/2);
  Tensor x = randn({2, 4, 4, 6});
  EXPECT_EQ(gc(x).shape(), Shape({2, 4, 4, 4}));
  EXPECT_EQ(gc.W.shape(), Shape({3, 3, 3, 4}));  // [kh, kw, in / n_group, n_filter]
  testing_nn::randomize(gc);
  const ConvOptions same = nn::same_padding();
  auto by_halves = [&](const Tensor& t) {
    Tensor lo = conv2d(slice(t, 3, 0, 3), slice(gc.W, 3, 0, 2), Tensor(), same);
    Tensor hi = conv2d(slice(t, 3, 3, 6), slice(gc.W, 3, 2, 4), Tensor(), same);
    return concat({lo, hi}, 3) + gc.b;
  };
  expect_same_as([&](const Tensor& t) { return gc(t); }, by_halves, x, {gc.W, gc.b}, 1e-4);
}

TEST(DepthwiseTest, ErrorsNameTheLayer) {
  nn::DepthwiseConv2d dw({3}, {}, nn::same_padding(), 1, "dw");
  expect_error([&] { dw(randn({2, 4, 3})); }, {"dw (depthwiseconv2d)", "[2, 4, 3]"});
  dw(randn({1, 4, 4, 3}));
  expect_error([&] { dw(randn({1, 4, 4, 2})); }, {"dw", "[N, H, W, 3]", "[1, 4, 4, 2]"});
  nn::SeparableConv2d sep(4, {3}, {}, {}, 1, "sep");
  sep(randn({1, 4, 4, 3}));
  expect_error([&] { sep(randn({1, 4, 4, 5})); }, {"sep", "[1, 4, 4, 5]"});
  nn::GroupConv2d gc(4, {3}, 2, {}, nn::same_padding(), "gc");
  expect_error([&] { gc(randn({1, 4, 4, 3})); }, {"gc (groupconv2d)", "must divide the 3 input channels"});
  expect_error([&] { nn::GroupConv2d(3, {3}, 2); }, {"must divide n_filter"});
}

}  // namespace
}  // namespace strata
