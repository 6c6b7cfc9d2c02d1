#include <gtest/gtest.h>

#include "nn/layer_check.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;
using testing_nn::expect_same_as;

TEST(PoolVariantsTest, WindowPoolsMatchTheirOps) {
  Tensor x1 = randn({2, 7, 3});
  nn::MaxPool1d mp1;  // window 2, stride 2, SAME
  EXPECT_EQ(mp1(x1).shape(), Shape({2, 4, 3}));
  expect_same_as([&](const Tensor& t) { return mp1(t); },
                 [](const Tensor& t) { return max_pool1d(t, {2}, {.padding = Padding::same()}); }, x1, {});
  nn::MeanPool1d ap1({3}, {.stride = {1}});
  EXPECT_EQ(ap1(x1).shape(), Shape({2, 5, 3}));
  expect_same_as([&](const Tensor& t) { return ap1(t); },
                 [](const Tensor& t) { return avg_pool1d(t, {3}, {.stride = {1}}); }, x1, {});
  Tensor x3 = randn({1, 4, 5, 4, 2});
  nn::MaxPool3d mp3;
  EXPECT_EQ(mp3(x3).shape(), Shape({1, 2, 3, 2, 2}));
  expect_same_as([&](const Tensor& t) { return mp3(t); },
                 [](const Tensor& t) { return max_pool3d(t, {2}, {.padding = Padding::same()}); }, x3, {});
  nn::MeanPool3d ap3;
  expect_same_as([&](const Tensor& t) { return ap3(t); },
                 [](const Tensor& t) { return avg_pool3d(t, {2}, {.padding = Padding::same()}); }, x3, {});
}

TEST(PoolVariantsTest, GlobalPoolsReduceEverySpatialAxis) {
  Tensor x1 = randn({2, 5, 3}), x2 = randn({2, 3, 4, 3}), x3 = randn({2, 2, 3, 2, 3});
  expect_same_as([](const Tensor& t) { return nn::GlobalMaxPool1d()(t); }, [](const Tensor& t) { return amax(t, {1}); },
                 x1, {});
  expect_same_as([](const Tensor& t) { return nn::GlobalMeanPool1d()(t); },
                 [](const Tensor& t) { return mean(t, {1}); }, x1, {});
  expect_same_as([](const Tensor& t) { return nn::GlobalMaxPool2d()(t); },
                 [](const Tensor& t) {
                   return amax(t, {1, 2});
                 },
                 x2, {});
  expect_same_as([](const Tensor& t) { return nn::GlobalMeanPool2d()(t); },
                 [](const Tensor& t) {
                   return mean(t, {1, 2});
                 },
                 x2, {});
  expect_same_as([](const Tensor& t) { return nn::GlobalMaxPool3d()(t); },
                 [](const Tensor& t) {
                   return amax(t, {1, 2, 3});
                 },
                 x3, {});
  expect_same_as([](const Tensor& t) { return nn::GlobalMeanPool3d()(t); },
                 [](const Tensor& t) {
                   return mean(t, {1, 2, 3});
                 },
                 x3, {});
}

TEST(PoolVariantsTest, ErrorsNameTheLayer) {
  expect_error(
      [] {
        nn::MaxPool1d({2}, {}, "p1")(randn({2, 4, 4, 3}));
      },
      {"p1 (maxpool1d)", "[N, W, C]", "[2, 4, 4, 3]"});
  expect_error([] { nn::MeanPool3d({2}, {}, "p3")(randn({2, 4, 4, 3})); }, {"p3 (meanpool3d)", "[N, D, H, W, C]"});
  expect_error([] { nn::GlobalMeanPool2d("g2")(randn({2, 4, 3})); }, {"g2 (globalmeanpool2d)", "[N, H, W, C]"});
}

TEST(PoolVariantsTest, TemporariesJoinStaticModels) {
  auto x = nn::Input({-1, 8, 8, 3});
  auto h = nn::GlobalMeanPool2d()(x);
  EXPECT_EQ(h.shape(), Shape({-1, 3}));
  nn::Model m(x, h);
  EXPECT_EQ(m(randn({4, 8, 8, 3})).shape(), Shape({4, 3}));
}

}  // namespace
}  // namespace strata
