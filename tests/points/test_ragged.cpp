// Ragged batches (strata/points/ragged.hpp): offsets, views, and resampling to a fixed size.
#include <gtest/gtest.h>

#include <set>

#include "strata/core/factory.hpp"
#include "strata/points/ragged.hpp"

namespace strata::points {
namespace {

// Cloud i's rows hold (i, row, 0): each picked row says where it came from.
Tensor numbered_cloud(int64_t i, int64_t n) {
  std::vector<float> v;
  for (int64_t r = 0; r < n; ++r) v.insert(v.end(), {static_cast<float>(i), static_cast<float>(r), 0.0f});
  return from_vector(v, {n, 3});
}

TEST(RaggedClouds, OffsetsAndViewsFollowTheClouds) {
  const RaggedClouds batch = RaggedClouds::from_clouds({numbered_cloud(0, 5), numbered_cloud(1, 2), numbered_cloud(2, 7)});
  EXPECT_EQ(batch.offsets, (std::vector<int64_t>{0, 5, 7, 14}));
  EXPECT_EQ(batch.size(), 3);
  const Tensor second = batch.cloud(1);
  ASSERT_EQ(second.shape(), Shape({2, 3}));
  EXPECT_EQ(second.to_vector<float>(), (std::vector<float>{1, 0, 0, 1, 1, 0}));
  EXPECT_THROW(batch.cloud(3), Error);
  EXPECT_THROW(RaggedClouds::from_clouds({numbered_cloud(0, 2), zeros({3, 4})}), Error);
}

TEST(RaggedClouds, ToFixedTakesDistinctPointsOrAllThenRepeats) {
  const RaggedClouds batch = RaggedClouds::from_clouds({numbered_cloud(0, 10), numbered_cloud(1, 3)});
  const Tensor fixed = to_fixed(batch, 4, 7);
  ASSERT_EQ(fixed.shape(), Shape({2, 4, 3}));
  const std::vector<float> v = fixed.to_vector<float>();
  std::set<float> first, second;
  for (size_t j = 0; j < 4; ++j) {
    EXPECT_EQ(v[j * 3], 0.0f);  // every point from its own cloud
    EXPECT_EQ(v[12 + j * 3], 1.0f);
    first.insert(v[j * 3 + 1]);
    second.insert(v[12 + j * 3 + 1]);
  }
  EXPECT_EQ(first.size(), 4u);   // a subset without repetition
  EXPECT_EQ(second.size(), 3u);  // all three, one repeated
  EXPECT_EQ(to_fixed(batch, 4, 7).to_vector<float>(), v);
  EXPECT_NE(to_fixed(batch, 4, 8).to_vector<float>(), v);
}

}  // namespace
}  // namespace strata::points
