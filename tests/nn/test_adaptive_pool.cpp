#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "nn/layer_check.hpp"

namespace strata {
namespace {

// PyTorch's adaptive pooling of [N, D, H, W, C] (size-1 axes stand for lower ranks) by a direct
// loop over every output element and its box.
std::vector<double> adaptive_loop(const Tensor& x5, int64_t od, int64_t oh, int64_t ow, bool max) {
  const int64_t n = x5.size(0), d = x5.size(1), h = x5.size(2), w = x5.size(3), c = x5.size(4);
  std::vector<double> xv = contiguous(x5).to_vector<double>(), out;
  auto start = [](int64_t i, int64_t in, int64_t o) { return static_cast<int64_t>(std::floor(double(i * in) / o)); };
  auto end = [](int64_t i, int64_t in, int64_t o) { return static_cast<int64_t>(std::ceil(double((i + 1) * in) / o)); };
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < od; ++i)
      for (int64_t j = 0; j < oh; ++j)
        for (int64_t k = 0; k < ow; ++k)
          for (int64_t ch = 0; ch < c; ++ch) {
            double acc = max ? -std::numeric_limits<double>::infinity() : 0.0;
            int64_t count = 0;
            for (int64_t p = start(i, d, od); p < end(i, d, od); ++p)
              for (int64_t q = start(j, h, oh); q < end(j, h, oh); ++q)
                for (int64_t r = start(k, w, ow); r < end(k, w, ow); ++r, ++count) {
                  double v = xv[(((b * d + p) * h + q) * w + r) * c + ch];
                  acc = max ? std::max(acc, v) : acc + v;
                }
            out.push_back(max ? acc : acc / count);
          }
  return out;
}

void expect_matches_loop(const Tensor& y, const std::vector<double>& ref) {
  std::vector<double> got = y.to_vector<double>();
  ASSERT_EQ(got.size(), ref.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], ref[i], 1e-12) << i;
}

TEST(AdaptivePoolTest, MatchesPyTorchBinsByLoop) {
  Tensor x2 = randn({2, 7, 5, 3}, kFloat64);  // 7 -> 3 and 5 -> 3: overlapping bins
  for (bool max : {true, false}) {
    Tensor y = max ? nn::AdaptiveMaxPool2d({3, 3})(x2) : nn::AdaptiveAvgPool2d({3})(x2);
    EXPECT_EQ(y.shape(), Shape({2, 3, 3, 3}));
    expect_matches_loop(y, adaptive_loop(unsqueeze(x2, 1), 1, 3, 3, max));
    // Output larger than input (5 -> 8 repeats elements).
    Tensor up = max ? nn::AdaptiveMaxPool2d({2, 8})(x2) : nn::AdaptiveAvgPool2d({2, 8})(x2);
    expect_matches_loop(up, adaptive_loop(unsqueeze(x2, 1), 1, 2, 8, max));
  }
  Tensor x1 = randn({2, 10, 4}, kFloat64);
  expect_matches_loop(nn::AdaptiveMaxPool1d({4})(x1), adaptive_loop(unsqueeze(unsqueeze(x1, 1), 1), 1, 1, 4, true));
  expect_matches_loop(nn::AdaptiveMeanPool1d({3})(x1), adaptive_loop(unsqueeze(unsqueeze(x1, 1), 1), 1, 1, 3, false));
  Tensor x3 = randn({1, 5, 4, 6, 2}, kFloat64);
  Tensor y3 = nn::AdaptiveAvgPool3d({2, 3, 4})(x3);
  EXPECT_EQ(y3.shape(), Shape({1, 2, 3, 4, 2}));
  expect_matches_loop(y3, adaptive_loop(x3, 2, 3, 4, false));
  expect_matches_loop(nn::AdaptiveMaxPool3d({3})(x3), adaptive_loop(x3, 3, 3, 3, true));
}

TEST(AdaptivePoolTest, GradientsModesAndErrors) {
  nn::AdaptiveMaxPool2d mp({3, 2});
  nn::AdaptiveAvgPool3d ap({2});
  testing_nn::expect_gradcheck([&](const std::vector<Tensor>& v) { return mp(v[0]); }, {randn({2, 5, 4, 2}, kFloat64)});
  testing_nn::expect_gradcheck([&](const std::vector<Tensor>& v) { return ap(v[0]); }, {randn({1, 3, 5, 4, 2}, kFloat64)});
  Tensor x = randn({2, 5, 4, 2});
  Tensor y = mp(x);
  mp.eval();
  EXPECT_TRUE(allclose(mp(x), y, 0, 0));
  testing_nn::expect_error([&] { mp(randn({2, 5, 4})); }, {mp.name(), "rank 4", "[2, 5, 4]"});
  testing_nn::expect_error([] { nn::AdaptiveAvgPool2d({2, 2, 2}, "a2"); }, {"a2 (adaptiveavgpool2d)", "1 or 2", "{2, 2, 2}"});
  testing_nn::expect_error([] { nn::adaptive_pool(randn({2, 4, 3}), {0}, nn::AdaptiveReduce::max); }, {"adaptive_pool", "{0}"});
}

}  // namespace
}  // namespace strata
