#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "ops/sliding_window_reference.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

using testing::Dims;
using testing::nhwc;
using testing::RefWindow;

Tensor pool_n(bool max, const Tensor& x, const SpatialSizes& k, const PoolOptions& o) {
  switch (x.dim()) {
    case 3: return max ? max_pool1d(x, k, o) : avg_pool1d(x, k, o);
    case 4: return max ? max_pool2d(x, k, o) : avg_pool2d(x, k, o);
    default: return max ? max_pool3d(x, k, o) : avg_pool3d(x, k, o);
  }
}

// Both max and average pooling of one random input against the loops.
void check_pool(const Dims& spatial, int64_t N, int64_t C, const Dims& kernel, const Dims& stride, bool same,
                DType dtype = kFloat32) {
  Generator gen(9);
  Tensor x = uniform(nhwc(N, spatial, C), -1, 1, dtype, &gen);
  RefWindow win = testing::ref_window(spatial, kernel, stride, Dims(spatial.size(), 1), same);
  for (bool max : {true, false}) {
    SCOPED_TRACE(max ? "max" : "avg");
    Tensor y = pool_n(max, x, kernel, {.stride = stride, .padding = same ? Padding::same() : Padding::valid()});
    EXPECT_EQ(y.shape(), nhwc(N, win.out, C));
    EXPECT_EQ(y.dtype(), dtype);
    testing::expect_close(y, testing::ref_pool(x.to_vector<double>(), N, C, win, max), 1e-6);
  }
}

TEST(PoolTest, Pool2dMatchesLoops) {
  check_pool({6, 6}, 2, 3, {2, 2}, {2, 2}, false);
  check_pool({7, 5}, 2, 3, {3, 3}, {2, 2}, true);
  check_pool({7, 8}, 1, 4, {3, 2}, {1, 3}, true);
  check_pool({7, 8}, 1, 4, {3, 2}, {2, 1}, false);
}
TEST(PoolTest, Pool1dAnd3dMatchLoops) {
  check_pool({9}, 2, 3, {3}, {2}, true);
  check_pool({9}, 2, 3, {2}, {2}, false);
  check_pool({5, 4, 6}, 1, 2, {2, 3, 2}, {2, 1, 2}, true);
  check_pool({5, 4, 6}, 1, 2, {2, 2, 3}, {1, 2, 3}, false);
}
TEST(PoolTest, Float64LoopsMatchLoops) {
  check_pool({7, 5}, 2, 3, {3, 3}, {2, 2}, true, kFloat64);
  check_pool({5, 4, 6}, 1, 2, {2, 3, 2}, {2, 1, 2}, true, kFloat64);
}

TEST(PoolTest, StrideDefaultsToKernel) {
  Tensor x = arange(0, 16, 1, kFloat32).reshape({1, 4, 4, 1});
  Tensor y = max_pool2d(x, {2});
  EXPECT_EQ(y.shape(), Shape({1, 2, 2, 1}));
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{5, 7, 13, 15}));
}

TEST(PoolTest, SamePaddingIsExcludedLikeTensorFlow) {
  // 3x3 input, 2x2 windows, stride 2, SAME: the last row and column of windows hang over the
  // bottom-right padding, so they average fewer elements and padding (zero) never wins a max.
  Tensor x = tensor({1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f, 9.f}, {1, 3, 3, 1});
  PoolOptions same{.stride = {2}, .padding = Padding::same()};
  EXPECT_EQ(avg_pool2d(x, {2}, same).to_vector<double>(), (std::vector<double>{3, 4.5, 7.5, 9}));
  EXPECT_EQ(max_pool2d(-x, {2}, same).to_vector<double>(), (std::vector<double>{-1, -3, -7, -9}));
}

TEST(PoolTest, NonContiguousInput) {
  Generator gen(1);
  Tensor x = transpose(uniform({5, 2, 6, 3}, -1, 1, kFloat32, &gen), 0, 1);  // [2, 5, 6, 3]
  RefWindow win = testing::ref_window({5, 6}, {2, 2}, {2, 2}, {1, 1}, true);
  testing::expect_close(max_pool2d(x, {2}, {.padding = Padding::same()}),
                        testing::ref_pool(x.to_vector<double>(), 2, 3, win, true), 1e-6);
}

TEST(PoolTest, GlobalPoolsReduceSpatialAxes) {
  Generator gen(2);
  Tensor x = uniform({2, 3, 4, 5}, -1, 1, kFloat32, &gen);
  EXPECT_EQ(global_max_pool2d(x).shape(), Shape({2, 5}));
  testing::expect_close(global_max_pool2d(x), amax(x.reshape({2, 12, 5}), {1}).to_vector<double>(), 1e-7);
  testing::expect_close(global_avg_pool2d(x), mean(x.reshape({2, 12, 5}), {1}).to_vector<double>(), 1e-6);
  EXPECT_EQ(global_avg_pool1d(zeros({2, 7, 3})).shape(), Shape({2, 3}));
  EXPECT_EQ(global_max_pool3d(zeros({2, 2, 3, 4, 3})).shape(), Shape({2, 3}));
  testing::expect_error([] { global_avg_pool3d(zeros({2, 3, 4, 5})); },
                                 {"global_avg_pool3d", "rank 5", "[2, 3, 4, 5]"});
}

// Backward through oneDNN (float32, max-pool workspace) against the loops (float64).
TEST(PoolTest, BackwardF32MatchesF64) {
  Generator gen(3);
  for (bool max : {true, false}) {
    SCOPED_TRACE(max ? "max" : "avg");
    for (bool same : {true, false}) {
      PoolOptions o{.stride = {2, 1}, .padding = same ? Padding::same() : Padding::valid()};
      testing::expect_f32_backward_matches_f64(
          [&](const std::vector<Tensor>& t) { return pool_n(max, t[0], {3, 2}, o); },
          {uniform({2, 7, 6, 3}, -1, 1, kFloat64, &gen)});
    }
    testing::expect_f32_backward_matches_f64(
        [&](const std::vector<Tensor>& t) { return pool_n(max, t[0], {3}, {.stride = {2}, .padding = Padding::same()}); },
        {uniform({2, 9, 3}, -1, 1, kFloat64, &gen)});
    testing::expect_f32_backward_matches_f64(
        [&](const std::vector<Tensor>& t) { return pool_n(max, t[0], {2}, {.padding = Padding::same()}); },
        {uniform({1, 5, 4, 3, 2}, -1, 1, kFloat64, &gen)});
  }
}

// The 2x2 stride-2 max pool of even sizes runs its own loops (kernels/cpu/max_pool_2x2.cpp) in
// float32. After a relu most windows hold ties at 0: the first maximum wins, as in the loops.
TEST(PoolTest, TilingMaxPool2x2MatchesLoopsWithTies) {
  Generator gen(4);
  for (bool same : {false, true}) {  // SAME adds no padding to even sizes: the same fast path
    const PoolOptions o{.padding = same ? Padding::same() : Padding::valid()};
    Tensor x = relu(uniform({2, 8, 6, 17}, -1, 1, kFloat32, &gen));
    RefWindow win = testing::ref_window({8, 6}, {2, 2}, {2, 2}, {1, 1}, same);
    testing::expect_close(max_pool2d(x, {2}, o), testing::ref_pool(x.to_vector<double>(), 2, 17, win, true), 0);
    testing::expect_f32_backward_matches_f64(
        [&](const std::vector<Tensor>& t) { return max_pool2d(relu(t[0]), {2}, o); },
        {uniform({2, 8, 6, 17}, -1, 1, kFloat64, &gen)});
  }
}

// From 1 MiB of input gradient with channels a multiple of 16, the 2x2 pool's backward writes
// with streaming stores (max_pool_2x2.cpp): the same values, the gradient at each window's first
// maximum and +0 elsewhere, checked element by element against that rule.
TEST(PoolTest, LargeTilingMaxPool2x2BackwardPutsTheGradientAtTheFirstMaximum) {
  Generator gen(5);
  for (const int64_t c : {32, 48, 17}) {  // 17: the loop without streaming stores
    SCOPED_TRACE(c);
    const int64_t n = 8, h = 32, w = 32;
    Tensor x = relu(uniform({n, h, w, c}, -1, 1, kFloat32, &gen)).requires_grad_();  // ties at 0
    Tensor dy = uniform({n, h / 2, w / 2, c}, -1, 1, kFloat32, &gen);
    max_pool2d(x, {2}).backward(dy);
    const auto xv = x.detach().to_vector<float>(), dyv = dy.to_vector<float>(), dxv = x.grad().to_vector<float>();
    std::vector<float> want(xv.size(), 0.0f);
    for (int64_t b = 0; b < n; ++b)
      for (int64_t oh = 0; oh < h / 2; ++oh)
        for (int64_t ow = 0; ow < w / 2; ++ow)
          for (int64_t ch = 0; ch < c; ++ch) {
            int64_t best = -1;
            for (int64_t k = 0; k < 4; ++k) {
              const int64_t i = ((b * h + 2 * oh + k / 2) * w + 2 * ow + k % 2) * c + ch;
              if (best < 0 || xv[i] > xv[best]) best = i;
            }
            want[best] = dyv[((b * h / 2 + oh) * (w / 2) + ow) * c + ch];
          }
    ASSERT_EQ(dxv.size(), want.size());
    int64_t wrong = 0;
    for (size_t i = 0; i < want.size(); ++i) wrong += std::memcmp(&dxv[i], &want[i], sizeof(float)) != 0;
    EXPECT_EQ(wrong, 0);
  }
}

TEST(PoolTest, ErrorsNameTheOpAndShapes) {
  using testing::expect_error;
  Tensor x = zeros({1, 4, 4, 3});
  expect_error([&] { max_pool2d(zeros({4, 4, 3}), {2}); }, {"max_pool2d", "rank 4", "[4, 4, 3]"});
  expect_error([&] { avg_pool2d(x, {5, 2}); }, {"avg_pool2d", "kernel", "larger", "[1, 4, 4, 3]"});
  expect_error([&] { max_pool2d(x, {2, 2, 2}); }, {"max_pool2d", "kernel", "[2, 2, 2]"});
  expect_error([&] { max_pool2d(x, {0}); }, {"max_pool2d", "kernel", ">= 1"});
  expect_error([&] { max_pool2d(x, {2}, {.padding = Padding::explicit_({2}, {0})}); },
                        {"max_pool2d", "padding", "smaller than the kernel"});
  expect_error([&] { max_pool1d(zeros({2, 3}, kInt64), {2}); }, {"max_pool1d", "rank 3"});
  expect_error([&] { max_pool1d(zeros({2, 3, 1}, kInt64), {2}); }, {"max_pool1d", "int64"});
}

}  // namespace
}  // namespace strata
