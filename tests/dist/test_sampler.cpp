// Shards: computed here for every rank of jobs of several sizes (shard_indices is pure), then
// the Dataset form checked across the real job's ranks.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "strata/dist/dist.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

std::vector<std::vector<int64_t>> all_shards(int64_t n, int size, int64_t epoch, dist::ShardOptions options) {
  std::vector<std::vector<int64_t>> shards;
  for (int r = 0; r < size; ++r) shards.push_back(dist::shard_indices(n, r, size, epoch, options));
  return shards;
}

TEST(DistSampler, PaddedShardsCoverEveryExampleWithEqualLengths) {
  for (int size : {1, 2, 3, 4}) {
    const auto shards = all_shards(10, size, 0, {.seed = 5});
    std::multiset<int64_t> seen;
    for (const auto& s : shards) {
      EXPECT_EQ(s.size(), size_t((10 + size - 1) / size));
      seen.insert(s.begin(), s.end());
    }
    for (int64_t i = 0; i < 10; ++i) EXPECT_GE(seen.count(i), 1u) << i;
    EXPECT_EQ(seen.size(), size_t((10 + size - 1) / size * size));  // padding repeats only the shortfall
  }
}

TEST(DistSampler, DroppedRemainderGivesDisjointShards) {
  const auto shards = all_shards(10, 3, 2, {.seed = 5, .remainder = dist::Remainder::drop});
  std::set<int64_t> seen;
  for (const auto& s : shards) {
    EXPECT_EQ(s.size(), 3u);
    seen.insert(s.begin(), s.end());
  }
  EXPECT_EQ(seen.size(), 9u);
}

TEST(DistSampler, EpochsReshuffleTheSameWayEverywhere) {
  const auto e0 = all_shards(100, 2, 0, {.seed = 1}), e1 = all_shards(100, 2, 1, {.seed = 1});
  EXPECT_NE(e0, e1);
  EXPECT_EQ(e0, all_shards(100, 2, 0, {.seed = 1}));
  EXPECT_EQ(all_shards(6, 2, 0, {.shuffle = false})[1], (std::vector<int64_t>{1, 3, 5}));
}

TEST(DistSampler, BadArgumentsAreErrors) {
  EXPECT_THROW(dist::shard_indices(10, 3, 3, 0), Error);
  EXPECT_THROW(dist::shard_indices(10, -1, 3, 0), Error);
  EXPECT_THROW(dist::shard_indices(2, 0, 3, 0), Error);
  EXPECT_THROW(dist::shard_indices(10, 0, 3, -1), Error);
}

TEST(DistSampler, TheJobsShardsOfADatasetAreItsExamples) {
  const int size = dist::world().size;
  data::Dataset ds = data::TensorDataset({arange(0, 20, 1, kFloat64)});
  data::Dataset mine = dist::shard(ds, 3, {.seed = 9, .remainder = dist::Remainder::drop});
  std::vector<double> values;
  for (int64_t i = 0; i < mine.size(); ++i) values.push_back(mine.get(i)[0].item<double>());
  Tensor gathered = dist::all_gather(from_vector(values));
  std::set<double> seen;
  for (double v : gathered.to_vector<double>()) seen.insert(v);
  EXPECT_EQ(seen.size(), size_t(20 / size * size));  // disjoint across the ranks
}

std::vector<double> values_of(const data::Stream& s) {
  std::vector<double> v;
  for (const data::Example& ex : s) v.push_back(ex[0].item<double>());
  return v;
}

data::Stream numbers(int n) {
  std::vector<data::Example> examples;
  for (int i = 0; i < n; ++i) examples.push_back({full({}, i, kFloat64)});
  return data::Stream::from_examples(examples);
}

TEST(DistSampler, StreamShardsTakeOneOfEachRoundAndDropAnIncompleteOne) {
  EXPECT_EQ(values_of(dist::shard(numbers(11), 1, 3)), (std::vector<double>{1, 4, 7}));
  EXPECT_EQ(values_of(dist::shard(numbers(11), 2, 3)), (std::vector<double>{2, 5, 8}));
  EXPECT_EQ(values_of(dist::shard(numbers(4), 0, 1)), (std::vector<double>{0, 1, 2, 3}));
  EXPECT_TRUE(values_of(dist::shard(numbers(2), 0, 3)).empty());
  EXPECT_THROW(dist::shard(numbers(2), 3, 3), Error);
  // The job's own shards: equal lengths, disjoint.
  Tensor mine = from_vector(values_of(dist::shard(numbers(10))));
  Tensor all = dist::all_gather(mine);
  std::set<double> seen;
  for (double v : all.to_vector<double>()) seen.insert(v);
  EXPECT_EQ(seen.size(), size_t(10 / dist::world().size * dist::world().size));
}

}  // namespace
}  // namespace strata
