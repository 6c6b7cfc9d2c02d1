// interleave (against tf.data's documented order), map without keeping order, and caches on
// disk: computed once, shared across "processes" (fresh pipelines on the same file), and not
// left behind by an interrupted pass.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>

#include "support/expect_error.hpp"
#include "strata/core/factory.hpp"
#include "strata/data/dataset.hpp"
#include "support/temp_dir.hpp"

using namespace strata;
using namespace strata::data;
using strata::testing::expect_error;

namespace {

Stream range(int64_t begin, int64_t end) {
  std::vector<Example> v;
  for (int64_t i = begin; i < end; ++i) v.push_back({scalar_tensor(static_cast<double>(i), kInt64)});
  return Stream::from_examples(v);
}

template <class Data>
std::vector<int64_t> firsts(const Data& data) {
  std::vector<int64_t> out;
  for (const Example& ex : data) out.push_back(ex[0].template item<int64_t>());
  return out;
}

class DiskCacheTest : public strata::testing::TempDirTest {};

}  // namespace

TEST(Interleave, MatchesTfDataDocumentedOrder) {
  // tf.data: range(1, 6).interleave(lambda x: from_tensors(x).repeat(6), cycle_length=2, block_length=4)
  auto repeat6 = [](const Example& ex) { return Stream::from_examples({ex}).repeat(6); };
  EXPECT_EQ(firsts(range(1, 6).interleave(repeat6, 2, 4)),
            (std::vector<int64_t>{1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5}));
  // Sub-streams of different lengths; a Dataset interleaves the same way.
  auto upto = [](const Example& ex) { return range(0, ex[0].item<int64_t>()); };
  EXPECT_EQ(firsts(range(1, 4).interleave(upto, 2)), (std::vector<int64_t>{0, 0, 1, 0, 1, 2}));
  EXPECT_EQ(firsts(TensorDataset({arange(1, 4)}).interleave(upto, 2)), (std::vector<int64_t>{0, 0, 1, 0, 1, 2}));
  expect_error([&] { range(0, 1).interleave(upto, 0); }, {"interleave", "cycle_length"});
}

TEST(MapUnordered, MapsEveryExampleOnceAndPropagatesErrors) {
  auto square = [](Example ex) {
    const int64_t v = ex[0].item<int64_t>();
    return Example{scalar_tensor(static_cast<double>(v * v), kInt64)};
  };
  std::vector<int64_t> got = firsts(range(0, 50).map(square, 3, false));
  std::multiset<int64_t> expected;
  for (int64_t i = 0; i < 50; ++i) expected.insert(i * i);
  EXPECT_EQ(std::multiset<int64_t>(got.begin(), got.end()), expected);
  auto fail_at_7 = [](Example ex) {
    STRATA_CHECK(ex[0].item<int64_t>() != 7, "bad example 7");
    return ex;
  };
  expect_error([&] { firsts(range(0, 20).map(fail_at_7, 2, false)); }, {"bad example 7"});
  // Stopping early joins the workers (the reader is destroyed mid-stream).
  EXPECT_EQ(firsts(range(0, 1000).map(square, 2, false).take(3)).size(), 3u);
}

TEST_F(DiskCacheTest, DatasetComputesOnceAcrossPipelines) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  auto make = [&] {
    return TensorDataset({arange(10), arange(0, 20, 1, kFloat32).reshape({10, 2})})
        .map([calls](Example ex) {
          ++*calls;
          ex[1] = ex[1].to(kFloat64);
          return ex;
        }, 2)
        .cache(path("ds.cache"));
  };
  Dataset first = make();
  EXPECT_EQ(firsts(first), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(calls->load(), 10);
  firsts(first.shuffle(3));
  // A new pipeline over the same file (as another process would build) reads the file.
  Example ex = make().get(7);
  EXPECT_EQ(calls->load(), 10);
  EXPECT_EQ(ex[1].dtype(), kFloat64);
  EXPECT_EQ(ex[1].to_vector<double>(), (std::vector<double>{14, 15}));
  // A cache of a different size is refused with the file named.
  expect_error([&] { TensorDataset({arange(4)}).cache(path("ds.cache")).get(0); }, {path("ds.cache"), "10", "4"});
}

TEST_F(DiskCacheTest, StreamWritesOnlyACompletePass) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  Stream s = range(0, 6).map([calls](Example ex) {
    ++*calls;
    return ex;
  }).cache(path("s.cache"));
  // An interrupted first pass leaves neither the cache nor a temporary file.
  EXPECT_EQ(firsts(s.take(3)).size(), 3u);
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
  EXPECT_EQ(firsts(s), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  const int after_full_pass = calls->load();
  EXPECT_TRUE(std::filesystem::exists(path("s.cache")));
  EXPECT_EQ(firsts(s.repeat(2)), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(calls->load(), after_full_pass);
  // A corrupt cache file is an error naming it, not a silent re-read.
  std::ofstream(path("bad.cache")) << "not a cache";
  expect_error([&] { firsts(range(0, 2).cache(path("bad.cache"))); }, {path("bad.cache"), "delete it"});
}
