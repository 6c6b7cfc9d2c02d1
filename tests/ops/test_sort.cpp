#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "strata/ops/sort.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

Tensor f32(std::vector<float> v) { return from_vector(v); }

TEST(SortTest, SortsAndReturnsWhereValuesCameFrom) {
  auto [v, i] = sort(f32({3, 1, 2}));
  EXPECT_EQ(v.to_vector<float>(), std::vector<float>({1, 2, 3}));
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_EQ(i.to_vector<int64_t>(), std::vector<int64_t>({1, 2, 0}));
  auto d = sort(f32({3, 1, 2}), 0, true);
  EXPECT_EQ(d.values.to_vector<float>(), std::vector<float>({3, 2, 1}));
}

TEST(SortTest, IsStableInBothDirections) {
  Tensor x = f32({2, 1, 2, 1});
  EXPECT_EQ(argsort(x).to_vector<int64_t>(), std::vector<int64_t>({1, 3, 0, 2}));
  EXPECT_EQ(argsort(x, -1, true).to_vector<int64_t>(), std::vector<int64_t>({0, 2, 1, 3}));
}

TEST(SortTest, NaNRanksAboveNumbers) {
  Tensor x = f32({1, NAN, -1});
  EXPECT_EQ(argsort(x).to_vector<int64_t>(), std::vector<int64_t>({2, 0, 1}));
  EXPECT_EQ(argsort(x, 0, true).to_vector<int64_t>(), std::vector<int64_t>({1, 0, 2}));
}

TEST(SortTest, MatchesStableSortAlongAnAxisOfANonContiguousTensor) {
  Generator gen(11);
  Tensor base = randint(0, 5, {6, 4}, kInt32, &gen);  // small range: many ties
  Tensor x = transpose(base, 0, 1);                   // [4, 6]; sort along axis 0 (length 4)
  auto [v, idx] = sort(x, 0);
  auto xv = x.to_vector<int64_t>(), vv = v.to_vector<int64_t>(), iv = idx.to_vector<int64_t>();
  for (int c = 0; c < 6; ++c) {
    std::vector<int64_t> order(4);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return xv[a * 6 + c] < xv[b * 6 + c]; });
    for (int r = 0; r < 4; ++r) {
      ASSERT_EQ(iv[r * 6 + c], order[r]);
      ASSERT_EQ(vv[r * 6 + c], xv[order[r] * 6 + c]);
    }
  }
}

TEST(SortTest, TopK) {
  Tensor x = from_vector(std::vector<float>{4, 9, 1, 7, 3, 8}, {2, 3});
  auto [v, i] = topk(x, 2);
  EXPECT_EQ(v.shape(), Shape({2, 2}));
  EXPECT_EQ(v.to_vector<float>(), std::vector<float>({9, 4, 8, 7}));
  EXPECT_EQ(i.to_vector<int64_t>(), std::vector<int64_t>({1, 0, 2, 0}));
  auto small = topk(x, 1, 0, false);
  EXPECT_EQ(small.values.to_vector<float>(), std::vector<float>({4, 3, 1}));
  EXPECT_EQ(small.indices.to_vector<int64_t>(), std::vector<int64_t>({0, 1, 0}));
}

TEST(SortTest, GradientsGoToTheSelectedPositions) {
  Tensor x = f32({5, 1, 4, 2}).requires_grad_();
  (topk(x, 2).values * f32({10, 1})).sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), std::vector<float>({10, 0, 1, 0}));
  Tensor y = f32({3, 1, 2}).requires_grad_();
  (sort(y).values * f32({1, 2, 3})).sum().backward();
  EXPECT_EQ(y.grad().to_vector<float>(), std::vector<float>({3, 1, 2}));
}

TEST(SortTest, KOutOfRangeThrows) {
  try {
    topk(zeros({2, 3}), 4);
    ADD_FAILURE() << "expected strata::Error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("topk"), std::string::npos) << msg;
    EXPECT_NE(msg.find("4"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[2, 3]"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace strata
