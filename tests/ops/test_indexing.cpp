#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/expect_error.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

using testing::expect_error;

Tensor i64(std::vector<int64_t> v, const Shape& shape) { return from_vector(v, shape); }
Tensor i64(std::vector<int64_t> v) { return from_vector(v); }
Tensor f32(std::vector<float> v, const Shape& shape) { return from_vector(v, shape); }


TEST(IndexingTest, IndexSelectPicksRowsAndColumns) {
  Tensor x = arange(0, 12, 1, kFloat32).reshape({3, 4});
  Tensor rows = index_select(x, 0, i64({2, 0, 2}));
  EXPECT_EQ(rows.shape(), Shape({3, 4}));
  EXPECT_EQ(rows.to_vector<float>(), std::vector<float>({8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11}));
  Tensor cols = index_select(x, -1, from_vector(std::vector<int32_t>{3, 1}));
  EXPECT_EQ(cols.to_vector<float>(), std::vector<float>({3, 1, 7, 5, 11, 9}));
}

TEST(IndexingTest, IndexSelectOnNonContiguousAndIntegerInputs) {
  Generator gen(3);
  Tensor base = randint(0, 100, {4, 3, 5}, kInt64, &gen);
  Tensor x = transpose(base, 0, 2);  // [5, 3, 4]
  std::vector<int64_t> idx = {4, 0, 3, 3};
  Tensor y = index_select(x, 0, i64(idx));
  ASSERT_EQ(y.shape(), Shape({4, 3, 4}));
  auto b = base.to_vector<int64_t>(), got = y.to_vector<int64_t>();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) ASSERT_EQ(got[(i * 3 + j) * 4 + k], b[(k * 3 + j) * 5 + idx[i]]);

  Tensor flags = from_vector(std::vector<bool>{true, false, false});
  EXPECT_EQ(index_select(flags, 0, i64({1, 0})).to_vector<int64_t>(), std::vector<int64_t>({0, 1}));
}

TEST(IndexingTest, GatherFollowsPyTorchDocs) {
  Tensor t = f32({1, 2, 3, 4}, {2, 2});
  Tensor g = gather(t, 1, i64({0, 0, 1, 0}, {2, 2}));
  EXPECT_EQ(g.to_vector<float>(), std::vector<float>({1, 1, 4, 3}));
}

TEST(IndexingTest, GatherAndScatterAddMatchLoops) {
  Generator gen(5);
  Tensor x = transpose(randn({5, 3, 2}, kFloat64, &gen), 0, 2);  // [2, 3, 5], non-contiguous
  Tensor idx = randint(0, 3, {2, 4, 5}, kInt64, &gen);         // along axis 1, longer than it
  Tensor y = gather(x, 1, idx);
  ASSERT_EQ(y.shape(), Shape({2, 4, 5}));
  auto xv = x.to_vector<double>(), yv = y.to_vector<double>();
  auto iv = idx.to_vector<int64_t>();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 5; ++k)
        ASSERT_EQ(yv[(i * 4 + j) * 5 + k], xv[(i * 3 + iv[(i * 4 + j) * 5 + k]) * 5 + k]);

  Tensor src = randn({2, 4, 5}, kFloat64, &gen);
  Tensor s = scatter_add(x, 1, idx, src);
  std::vector<double> want = xv;
  auto sv = src.to_vector<double>();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 5; ++k) want[(i * 3 + iv[(i * 4 + j) * 5 + k]) * 5 + k] += sv[(i * 4 + j) * 5 + k];
  auto got = s.to_vector<double>();
  for (size_t n = 0; n < want.size(); ++n) ASSERT_NEAR(got[n], want[n], 1e-12);
  EXPECT_EQ(x.to_vector<double>(), xv) << "scatter_add must not modify its input";
}

TEST(IndexingTest, ScatterAddOnIntegers) {
  Tensor x = zeros({4}, kInt64);
  Tensor y = scatter_add(x, 0, i64({1, 3, 1}), i64({5, 6, 7}));
  EXPECT_EQ(y.to_vector<int64_t>(), std::vector<int64_t>({0, 12, 0, 6}));
}

TEST(IndexingTest, MaskedSelectBroadcastsTheMask) {
  Tensor x = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor m = from_vector(std::vector<bool>{true, false, true}, {1, 3});
  Tensor y = masked_select(x, m);
  EXPECT_EQ(y.shape(), Shape({4}));
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>({1, 3, 4, 6}));
  EXPECT_EQ(masked_select(x, zeros({2, 3}, kBool)).numel(), 0);
}

TEST(IndexingTest, MaskedFillAndItsGradient) {
  Tensor x = f32({1, 2, 3, 4, 5, 6}, {2, 3}).requires_grad_();
  Tensor m = from_vector(std::vector<bool>{false, true}, {2, 1});
  Tensor y = masked_fill(x, m, -1);
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>({1, 2, 3, -1, -1, -1}));
  y.sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), std::vector<float>({1, 1, 1, 0, 0, 0}));
}

TEST(IndexingTest, OneHot) {
  Tensor y = one_hot(i64({2, 0, 1, 2}, {2, 2}), 3);
  EXPECT_EQ(y.shape(), Shape({2, 2, 3}));
  EXPECT_EQ(y.dtype(), kFloat32);
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>({0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1}));
  Tensor inferred = one_hot(from_vector(std::vector<int32_t>{1, 3}), -1, kInt64);
  EXPECT_EQ(inferred.shape(), Shape({2, 4}));
  EXPECT_EQ(inferred.to_vector<int64_t>(), std::vector<int64_t>({0, 1, 0, 0, 0, 0, 0, 1}));
}

TEST(IndexingTest, EmbeddingLooksUpRowsAndScattersGradients) {
  Tensor w = arange(0, 10, 1, kFloat32).reshape({5, 2}).detach().requires_grad_();
  Tensor ids = i64({1, 4, 0, 1}, {2, 2});
  Tensor y = embedding(w, ids);
  EXPECT_EQ(y.shape(), Shape({2, 2, 2}));
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>({2, 3, 8, 9, 0, 1, 2, 3}));
  (y * arange(1, 9, 1, kFloat32).reshape({2, 2, 2})).sum().backward();
  // Row 1 is looked up twice: its gradient is the sum of both uses.
  EXPECT_EQ(w.grad().to_vector<float>(), std::vector<float>({5, 6, 1 + 7, 2 + 8, 0, 0, 0, 0, 3, 4}));
}

TEST(IndexingTest, IndexSelectGradientAddsRepeats) {
  Tensor x = zeros({3, 2}, kFloat64).requires_grad_();
  index_select(x, 0, i64({2, 2, 0})).sum().backward();
  EXPECT_EQ(x.grad().to_vector<double>(), std::vector<double>({1, 1, 0, 0, 2, 2}));
}

TEST(IndexingTest, BadIndicesThrow) {
  Tensor x = zeros({3, 4});
  expect_error([&] { index_select(x, 1, i64({0, 4})); }, {"index_select", "4", "[3, 4]"});
  expect_error([&] { index_select(x, 0, i64({-1})); }, {"index_select", "-1", "[3, 4]"});
  expect_error([&] { index_select(x, 0, f32({0}, {1})); }, {"index_select", "float32"});
  expect_error([&] { index_select(x, 0, i64({0, 1}, {1, 2})); }, {"index_select", "1-D", "[1, 2]"});
  expect_error([&] { gather(x, 1, i64({0, 5}, {1, 2})); }, {"gather", "5", "[3, 4]"});
  expect_error([&] { gather(x, 1, i64({0, 1})); }, {"gather", "dimensions"});
  expect_error([&] { gather(x, 1, zeros({4, 1}, kInt64)); }, {"gather", "[4, 1]", "[3, 4]"});
  expect_error([&] { scatter_add(x, 0, i64({3}, {1, 1}), zeros({1, 1})); }, {"scatter_add", "3", "[3, 4]"});
  expect_error([&] { scatter_add(x, 0, i64({0}, {1, 1}), zeros({1, 1}, kFloat64)); }, {"scatter_add", "float64"});
  expect_error([&] { masked_select(x, zeros({3, 4})); }, {"masked_select", "bool", "float32"});
  expect_error([&] { masked_fill(x, zeros({2, 4}, kBool), 0); }, {"masked_fill"});
  expect_error([&] { masked_fill(zeros({4}), zeros({3, 4}, kBool), 0); }, {"masked_fill", "[3, 4]", "[4]"});
  expect_error([&] { one_hot(i64({0, 3}), 3); }, {"one_hot", "3"});
  expect_error([&] { embedding(zeros({5, 2}), i64({5})); }, {"embedding", "5", "[5, 2]"});
  expect_error([&] { embedding(zeros({5}), i64({0})); }, {"embedding", "2-D", "[5]"});
}

}  // namespace
}  // namespace strata
