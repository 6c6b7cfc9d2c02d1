#include <gtest/gtest.h>

#include "nn/layer_check.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;
using testing_nn::expect_gradcheck;
using testing_nn::expect_same_as;

TEST(ShapeLayersTest, TransposeExpandDimsTile) {
  Tensor x = randn({2, 3, 4});
  expect_same_as(
      [](const Tensor& t) {
        return nn::Transpose({0, 2, 1})(t);
      },
      [](const Tensor& t) {
        return permute(t, {0, 2, 1});
      },
      x, {});
  EXPECT_EQ(nn::ExpandDims(1)(x).shape(), Shape({2, 1, 3, 4}));
  EXPECT_EQ(nn::ExpandDims(-1)(x).shape(), Shape({2, 3, 4, 1}));
  expect_same_as(
      [](const Tensor& t) {
        return nn::Tile({1, 2, 3})(t);
      },
      [](const Tensor& t) {
        return tile(t, {1, 2, 3});
      },
      x, {});
  expect_error([&] { nn::Transpose({1, 0}, "tr")(x); }, {"tr (transpose)", "rank 2", "[2, 3, 4]"});
  expect_error([&] { nn::ExpandDims(5, "ex")(x); }, {"ex (expanddims)", "axis 5"});
  expect_error([&] { nn::Tile({2, 2}, "ti")(x); }, {"ti (tile)", "[2, 3, 4]"});
}

TEST(ShapeLayersTest, ZeroPadsTheSpatialAxes) {
  Tensor x1 = randn({2, 3, 2});
  Tensor y1 = nn::ZeroPad1d(2)(x1);
  EXPECT_EQ(y1.shape(), Shape({2, 7, 2}));
  EXPECT_TRUE(allclose(slice(y1, 1, 2, 5), x1, 0, 0));
  EXPECT_EQ(amax(abs(slice(y1, 1, 0, 2))).item<double>(), 0.0);
  EXPECT_EQ(nn::ZeroPad1d(nn::PadPairs{{1, 0}})(x1).shape(), Shape({2, 4, 2}));
  Tensor x2 = randn({1, 2, 3, 2});
  expect_same_as(
      [](const Tensor& t) {
        return nn::ZeroPad2d({{1, 2}, {0, 3}})(t);
      },
      [](const Tensor& t) {
        return pad(t, {{0, 0}, {1, 2}, {0, 3}, {0, 0}});
      },
      x2, {});
  EXPECT_EQ(nn::ZeroPad2d(1)(x2).shape(), Shape({1, 4, 5, 2}));
  EXPECT_EQ(nn::ZeroPad3d(1)(randn({1, 2, 2, 2, 3})).shape(), Shape({1, 4, 4, 4, 3}));
  expect_error([&] { nn::ZeroPad2d(1, "zp")(x1); }, {"zp (zeropad2d)", "[N, H, W, C]", "[2, 3, 2]"});
  expect_error([] { nn::ZeroPad3d(nn::PadPairs{{1, 1}}); }, {"3 {before, after} pairs"});
}

TEST(ShapeLayersTest, NearestResizeUsesHalfPixelCentres) {
  Tensor x = reshape(arange(0, 4, 1, kFloat32), {1, 2, 2, 1});  // [[0, 1], [2, 3]]
  Tensor up = nn::UpSampling2d({2}, nn::ResizeMethod::nearest)(x);
  EXPECT_TRUE(allclose(reshape(up, {4, 4}), tensor({0.0f, 0.0f, 1.0f, 1.0f, 0.0f, 0.0f, 1.0f, 1.0f,  //
                                                    2.0f, 2.0f, 3.0f, 3.0f, 2.0f, 2.0f, 3.0f, 3.0f},
                                                   {4, 4})));
  // Down by 2 picks the second of each pair of rows and columns (TensorFlow 2's choice).
  Tensor big = reshape(arange(0, 16, 1, kFloat32), {1, 4, 4, 1});
  Tensor down = nn::DownSampling2d({2}, nn::ResizeMethod::nearest)(big);
  EXPECT_TRUE(allclose(reshape(down, {4}), tensor({5.0f, 7.0f, 13.0f, 15.0f})));
}

TEST(ShapeLayersTest, BilinearResizeMatchesTensorFlow) {
  // tf.image.resize([0, 1] as 1x2, [1, 4], 'bilinear') = [0, 0.25, 0.75, 1].
  Tensor row = reshape(tensor({0.0f, 1.0f}), {1, 1, 2, 1});
  Tensor up = nn::UpSampling2d({1, 2})(row);
  EXPECT_TRUE(allclose(reshape(up, {4}), tensor({0.0f, 0.25f, 0.75f, 1.0f})));
  // Down by 2 averages each pair: centres at 0.5 and 2.5.
  Tensor line = reshape(tensor({0.0f, 1.0f, 2.0f, 3.0f}), {1, 1, 4, 1});
  EXPECT_TRUE(allclose(reshape(nn::DownSampling2d({1, 2})(line), {2}), tensor({0.5f, 2.5f})));
  Tensor x = randn({2, 3, 5, 2});
  EXPECT_EQ(nn::UpSampling2d({2, 3})(x).shape(), Shape({2, 6, 15, 2}));
  EXPECT_EQ(nn::DownSampling2d({2})(x).shape(), Shape({2, 1, 2, 2}));
  expect_error(
      [&] {
        nn::UpSampling2d({2}, nn::ResizeMethod::bilinear, "up")(randn({2, 3, 2}));
      },
      {"up (upsampling2d)", "[N, H, W, C]"});
  expect_error([&] { nn::DownSampling2d({4}, nn::ResizeMethod::bilinear, "down")(x); }, {"down", "H >= 4"});
}

TEST(ShapeLayersTest, ResizeIsDifferentiable) {
  for (auto method : {nn::ResizeMethod::nearest, nn::ResizeMethod::bilinear}) {
    // Up on one axis and down on the other, by ratios that are not whole numbers.
    Tensor w = randn({2, 5, 2, 2}, kFloat64);
    expect_gradcheck([&](const std::vector<Tensor>& v) { return nn::resize2d(v[0], 5, 2, method) * w; },
                     {randn({2, 3, 3, 2}, kFloat64)});
  }
  Tensor x = randn({1, 3, 3, 2});
  expect_same_as([](const Tensor& t) { return nn::UpSampling2d({2})(t); },
                 [](const Tensor& t) { return nn::resize2d(t, 6, 6); }, x, {});
}

}  // namespace
}  // namespace strata
