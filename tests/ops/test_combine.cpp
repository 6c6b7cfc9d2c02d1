#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/expect_error.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

using testing::expect_error;

Tensor f32(std::vector<float> v, const Shape& shape) { return from_vector(v, shape); }
Tensor f32(std::vector<float> v) { return from_vector(v); }


TEST(CombineTest, ConcatAlongEachAxis) {
  Tensor a = f32({1, 2, 3, 4}, {2, 2}), b = f32({5, 6}, {2, 1});
  Tensor c = concat({a, b}, -1);
  EXPECT_EQ(c.shape(), Shape({2, 3}));
  EXPECT_EQ(c.to_vector<float>(), std::vector<float>({1, 2, 5, 3, 4, 6}));
  Tensor r = concat({a, transpose(a, 0, 1)}, 0);  // second part non-contiguous
  EXPECT_EQ(r.to_vector<float>(), std::vector<float>({1, 2, 3, 4, 1, 3, 2, 4}));
}

TEST(CombineTest, ConcatPromotesDtypes) {
  Tensor c = concat({tensor({1, 2}), f32({0.5f})});
  EXPECT_EQ(c.dtype(), kFloat32);
  EXPECT_EQ(c.to_vector<float>(), std::vector<float>({1, 2, 0.5f}));
}

TEST(CombineTest, StackAddsAnAxis) {
  Tensor a = f32({1, 2, 3}), b = f32({4, 5, 6});
  EXPECT_EQ(stack({a, b}).shape(), Shape({2, 3}));
  Tensor s = stack({a, b}, -1);
  EXPECT_EQ(s.shape(), Shape({3, 2}));
  EXPECT_EQ(s.to_vector<float>(), std::vector<float>({1, 4, 2, 5, 3, 6}));
}

TEST(CombineTest, SplitThenConcatGivesBackTheInput) {
  Generator gen(7);
  Tensor x = transpose(randn({5, 4, 3}, kFloat32, &gen), 0, 2);  // [3, 4, 5]
  auto parts = split(x, std::vector<int64_t>{1, 0, 4}, -1);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1].shape(), Shape({3, 4, 0}));
  EXPECT_TRUE(allclose(concat(parts, -1), x, 0, 0));
  auto even = split(x, 2, 1);
  ASSERT_EQ(even.size(), 2u);
  EXPECT_TRUE(allclose(concat(even, 1), x, 0, 0));
  auto chunks = chunk(x, 2, 2);  // 5 -> 3 + 2
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].shape(), Shape({3, 4, 3}));
  EXPECT_EQ(chunks[1].shape(), Shape({3, 4, 2}));
  EXPECT_TRUE(allclose(concat(chunks, 2), x, 0, 0));
  EXPECT_EQ(chunk(f32({1, 2, 3, 4, 5, 6}), 4).size(), 3u);  // pieces of 2, as PyTorch
}

TEST(CombineTest, SplitIsOneNodeAndUnusedPiecesGetZeroGradients) {
  Tensor x = f32({1, 2, 3, 4, 5}).requires_grad_();
  auto parts = split(x, std::vector<int64_t>{2, 3});
  EXPECT_EQ(parts[0].grad_fn(), parts[1].grad_fn());
  EXPECT_STREQ(parts[0].grad_fn()->name(), "split");
  (parts[1] * 2.0).sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), std::vector<float>({0, 0, 2, 2, 2}));
}

TEST(CombineTest, PadModes) {
  Tensor x = f32({1, 2, 3, 4});
  EXPECT_EQ(pad(x, {{2, 2}}, PadMode::reflect).to_vector<float>(), std::vector<float>({3, 2, 1, 2, 3, 4, 3, 2}));
  EXPECT_EQ(pad(x, {{2, 1}}, PadMode::replicate).to_vector<float>(), std::vector<float>({1, 1, 1, 2, 3, 4, 4}));
  EXPECT_EQ(pad(x, {{1, 0}}, PadMode::constant, 9).to_vector<float>(), std::vector<float>({9, 1, 2, 3, 4}));
  // Pairs cover the last axes in axis order: rows untouched here, columns padded.
  Tensor m = f32({1, 2, 3, 4}, {2, 2});
  Tensor p = pad(m, {{0, 1}});
  EXPECT_EQ(p.shape(), Shape({2, 3}));
  EXPECT_EQ(p.to_vector<float>(), std::vector<float>({1, 2, 0, 3, 4, 0}));
  Tensor q = pad(transpose(m, 0, 1), {{1, 0}, {0, 1}}, PadMode::replicate);
  EXPECT_EQ(q.to_vector<float>(), std::vector<float>({1, 3, 3, 1, 3, 3, 2, 4, 4}));
}

TEST(CombineTest, ReflectPadGradientCountsMirrors) {
  Tensor x = f32({1, 2, 3}).requires_grad_();
  pad(x, {{2, 1}}, PadMode::reflect).sum().backward();  // [3 2 | 1 2 3 | 2]
  EXPECT_EQ(x.grad().to_vector<float>(), std::vector<float>({1, 3, 2}));
}

TEST(CombineTest, TileRepeats) {
  Tensor x = f32({1, 2});
  Tensor t = tile(x, {2, 2});
  EXPECT_EQ(t.shape(), Shape({2, 4}));
  EXPECT_EQ(t.to_vector<float>(), std::vector<float>({1, 2, 1, 2, 1, 2, 1, 2}));
  Tensor m = f32({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(tile(m, {2}).to_vector<float>(), std::vector<float>({1, 2, 1, 2, 3, 4, 3, 4}));
  Tensor xg = f32({1, 2}).requires_grad_();
  (tile(xg, {3}) * f32({1, 2, 3, 4, 5, 6})).sum().backward();
  EXPECT_EQ(xg.grad().to_vector<float>(), std::vector<float>({1 + 3 + 5, 2 + 4 + 6}));
}

TEST(CombineTest, FlipAndRoll) {
  Tensor m = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(flip(m, {1}).to_vector<float>(), std::vector<float>({3, 2, 1, 6, 5, 4}));
  EXPECT_EQ(flip(m, {0, 1}).to_vector<float>(), std::vector<float>({6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(roll(f32({1, 2, 3, 4, 5}), 2, 0).to_vector<float>(), std::vector<float>({4, 5, 1, 2, 3}));
  EXPECT_EQ(roll(m, {1}).to_vector<float>(), std::vector<float>({6, 1, 2, 3, 4, 5}));
  EXPECT_EQ(roll(m, {-1, 1}, {0, 1}).to_vector<float>(), std::vector<float>({6, 4, 5, 3, 1, 2}));
}

TEST(CombineTest, FlipRollAndTileMatchLoopsOnContiguousBlocks) {
  Generator gen(13);
  Tensor x = randn({2, 3, 4}, kFloat64, &gen);  // trailing axes copied as whole blocks
  auto xv = x.to_vector<double>();
  auto f = flip(x, {1}).to_vector<double>(), r = roll(x, 2, 1).to_vector<double>();
  auto t = tile(x, {1, 2, 1}).to_vector<double>();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        ASSERT_EQ(f[(i * 3 + j) * 4 + k], xv[(i * 3 + (2 - j)) * 4 + k]);
        ASSERT_EQ(r[(i * 3 + (j + 2) % 3) * 4 + k], xv[(i * 3 + j) * 4 + k]);
        ASSERT_EQ(t[(i * 6 + j) * 4 + k], xv[(i * 3 + j) * 4 + k]);
        ASSERT_EQ(t[(i * 6 + j + 3) * 4 + k], xv[(i * 3 + j) * 4 + k]);
      }
}

TEST(CombineTest, RoundTrips) {
  Generator gen(9);
  Tensor x = transpose(randint(0, 50, {4, 3, 5}, kInt32, &gen), 1, 2);  // [4, 5, 3], non-contiguous
  EXPECT_TRUE(allclose(flip(flip(x, {0, 2}), {2, 0}), x, 0, 0));
  EXPECT_TRUE(allclose(roll(roll(x, {3, -7}, {1, -1}), {-3, 7}, {1, -1}), x, 0, 0));
  EXPECT_TRUE(allclose(roll(roll(x, {11}), {-11}), x, 0, 0));
  Tensor padded = pad(x, {{1, 2}, {0, 2}}, PadMode::reflect);
  EXPECT_TRUE(allclose(slice(slice(padded, 1, 1, 6), 2, 0, 3), x, 0, 0));
}

TEST(CombineTest, BadArgumentsThrow) {
  Tensor a = zeros({2, 3}), b = zeros({3, 3});
  expect_error([&] { concat({a, b}, 1); }, {"concat", "[3, 3]", "[2, 3]"});
  expect_error([&] { concat({a, zeros({2})}, 0); }, {"concat", "[2]", "[2, 3]"});
  expect_error([&] { concat({}, 0); }, {"concat"});
  expect_error([&] { stack({a, b}); }, {"stack", "[3, 3]", "[2, 3]"});
  expect_error([&] { split(a, std::vector<int64_t>{1, 1}, 1); }, {"split", "[1, 1]", "[2, 3]"});
  expect_error([&] { pad(a, {{3, 0}}, PadMode::reflect); }, {"pad", "reflect", "3", "[2, 3]"});
  expect_error([&] { pad(a, {{0, 1}, {1, 0}, {1, 1}}); }, {"pad", "[2, 3]"});
  expect_error([&] { pad(a, {{-1, 0}}); }, {"pad", "-1"});
  expect_error([&] { tile(a, {-1}); }, {"tile", "-1"});
  expect_error([&] { flip(a, {1, -1}); }, {"flip", "twice"});
  expect_error([&] { roll(a, {1, 2}, {0}); }, {"roll"});
}

}  // namespace
}  // namespace strata
