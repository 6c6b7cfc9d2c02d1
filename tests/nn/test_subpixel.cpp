#include <gtest/gtest.h>

#include "nn/layer_check.hpp"

namespace strata {
namespace {

TEST(SubpixelTest, Conv2dIsDepthToSpaceByIndexLoop) {
  const int64_t n = 2, h = 3, w = 4, s = 2, c = 3;
  nn::SubpixelConv2d sp(s);
  Tensor x = randn({n, h, w, s * s * c});
  Tensor y = sp(x);
  ASSERT_EQ(y.shape(), Shape({n, h * s, w * s, c}));
  std::vector<float> xv = x.to_vector<float>(), yv = y.to_vector<float>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t r = 0; r < h * s; ++r)
      for (int64_t q = 0; q < w * s; ++q)
        for (int64_t k = 0; k < c; ++k) {
          const int64_t i = r % s, j = q % s, depth = (i * s + j) * c + k;
          ASSERT_EQ(yv[((b * h * s + r) * w * s + q) * c + k], xv[((b * h + r / s) * w + q / s) * s * s * c + depth]);
        }
  testing_nn::expect_gradcheck([](const std::vector<Tensor>& v) { return nn::depth_to_space(v[0], 3) * 1.5; },
                               {randn({1, 2, 2, 18}, kFloat64)});
  sp.eval();
  EXPECT_TRUE(allclose(sp(x), y, 0, 0));
  EXPECT_TRUE(allclose(nn::SubpixelConv2d(2, nn::relu)(x), relu(y), 0, 0));
  testing_nn::expect_error([&] { sp(randn({1, 2, 2, 6})); }, {sp.name(), "divisible by 4", "[1, 2, 2, 6]"});
}

TEST(SubpixelTest, Conv1dByIndexLoop) {
  const int64_t n = 2, w = 5, s = 3, c = 2;
  nn::SubpixelConv1d sp(s);
  Tensor x = randn({n, w, s * c});
  Tensor y = sp(x);
  ASSERT_EQ(y.shape(), Shape({n, w * s, c}));
  std::vector<float> xv = x.to_vector<float>(), yv = y.to_vector<float>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t q = 0; q < w * s; ++q)
      for (int64_t k = 0; k < c; ++k)
        ASSERT_EQ(yv[(b * w * s + q) * c + k], xv[(b * w + q / s) * s * c + (q % s) * c + k]);
  testing_nn::expect_gradcheck([&](const std::vector<Tensor>& v) { return sp(v[0]) * sp(v[0]); },
                               {randn({2, 3, 6}, kFloat64)});
  testing_nn::expect_error([&] { sp(randn({2, 3, 4, 6})); }, {sp.name(), "[N, W, C]"});
}

}  // namespace
}  // namespace strata
