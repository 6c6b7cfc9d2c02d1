#include <gtest/gtest.h>

#include "nn/layer_check.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;
using testing_nn::expect_same_as;

TEST(ConvVariantsTest, Conv1dInfersChannelsAndMatchesTheOp) {
  nn::Conv1d conv(4, {3}, nn::relu);
  Tensor x = randn({2, 7, 3});
  EXPECT_EQ(conv(x).shape(), Shape({2, 7, 4}));  // SAME
  EXPECT_EQ(conv.W.shape(), Shape({3, 3, 4}));   // [k, in, n_filter]
  EXPECT_EQ(conv.b.shape(), Shape({4}));
  testing_nn::randomize(conv);
  expect_same_as([&](const Tensor& t) { return conv(t); },
                 [&](const Tensor& t) { return relu(conv1d(t, conv.W, conv.b, {.padding = Padding::same()})); }, x,
                 {conv.W, conv.b}, 1e-4);
  EXPECT_EQ(nn::Conv1d(2, {5}, {}, {.stride = {2}})(x).shape(), Shape({2, 2, 2}));  // VALID: (7 - 5) / 2 + 1
}

TEST(ConvVariantsTest, Conv3dInfersChannelsAndMatchesTheOp) {
  nn::Conv3d conv(3, {2, 2, 2}, {}, {}, "", -1, /*use_bias=*/false);  // VALID
  Tensor x = randn({1, 3, 4, 3, 2});
  EXPECT_EQ(conv(x).shape(), Shape({1, 2, 3, 2, 3}));
  EXPECT_EQ(conv.W.shape(), Shape({2, 2, 2, 2, 3}));
  EXPECT_FALSE(conv.b.defined());
  EXPECT_EQ(conv.all_weights().size(), 1u);
  expect_same_as([&](const Tensor& t) { return conv(t); }, [&](const Tensor& t) { return conv3d(t, conv.W); }, x,
                 {conv.W}, 1e-4);
}

TEST(ConvVariantsTest, DeConv2dUpsamplesWithTensorFlowsFilterLayout) {
  nn::DeConv2d deconv(5);  // filter 3x3, stride 2, SAME
  Tensor x = randn({2, 3, 4, 3});
  EXPECT_EQ(deconv(x).shape(), Shape({2, 6, 8, 5}));
  EXPECT_EQ(deconv.W.shape(), Shape({3, 3, 5, 3}));  // [kh, kw, n_filter, in]
  testing_nn::randomize(deconv);
  expect_same_as([&](const Tensor& t) { return deconv(t); },
                 [&](const Tensor& t) {
                   return conv_transpose2d(t, deconv.W, deconv.b, {.stride = {2}, .padding = Padding::same()});
                 },
                 x, {deconv.W, deconv.b}, 1e-4);
}

TEST(ConvVariantsTest, DeConv3dUpsamples) {
  nn::DeConv3d deconv(2, {2, 2, 2});
  Tensor x = randn({1, 2, 2, 3, 3});
  EXPECT_EQ(deconv(x).shape(), Shape({1, 4, 4, 6, 2}));
  EXPECT_EQ(deconv.W.shape(), Shape({2, 2, 2, 2, 3}));
  testing_nn::randomize(deconv);
  expect_same_as([&](const Tensor& t) { return deconv(t); },
                 [&](const Tensor& t) {
                   return conv_transpose3d(t, deconv.W, deconv.b, {.stride = {2}, .padding = Padding::same()});
                 },
                 x, {deconv.W, deconv.b}, 1e-4);
}

TEST(ConvVariantsTest, ErrorsNameTheLayer) {
  nn::Conv1d c1(4, {3}, {}, nn::same_padding(), "c1");
  expect_error([&] { c1(randn({2, 5, 5, 3})); }, {"c1 (conv1d)", "[N, W, C]", "[2, 5, 5, 3]"});
  c1(randn({2, 5, 3}));
  expect_error([&] { c1(randn({2, 5, 2})); }, {"c1", "C = 3", "[2, 5, 2]"});
  nn::Conv3d c3(2, {3}, {}, nn::same_padding(), "c3", /*in_channels=*/4);
  expect_error([&] { c3(randn({1, 2, 2, 2, 3})); }, {"c3", "declared with 4 input channels"});
  nn::DeConv2d d2(2, {3}, {}, nn::same_padding(2), "d2");
  expect_error([&] { d2(randn({2, 3, 3})); }, {"d2 (deconv2d)", "[N, H, W, C]"});
  expect_error([&] { nn::Conv1d(4, {3, 3}); }, {"filter_size"});
}

TEST(ConvVariantsTest, TemporariesJoinStaticModels) {
  auto x = nn::Input({-1, 8, 3});
  auto h = nn::Conv1d(4, {3}, nn::relu)(x);
  nn::Model m(x, nn::Conv1d(2, {3}, {}, nn::same_padding(2))(h));
  EXPECT_EQ(m(randn({3, 8, 3})).shape(), Shape({3, 4, 2}));
  EXPECT_EQ(m.trainable_weights().size(), 4u);
}

}  // namespace
}  // namespace strata
