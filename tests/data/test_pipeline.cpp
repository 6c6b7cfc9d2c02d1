// Datasets, streams and their combinators: properties that a wrong implementation would break
// (order, permutations, sizes, partitions), checked on small integer-valued data.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>
#include <set>
#include <thread>

#include "strata/core/factory.hpp"
#include "strata/core/intra_op_threads.hpp"
#include "strata/data/dataset.hpp"

using namespace strata;
using namespace strata::data;

namespace {

// Example i is {scalar i (int64), [i, i] float32}.
Dataset numbers(int64_t n) {
  Tensor ids = arange(n);
  Tensor pairs = arange(0, static_cast<double>(n), 1, kFloat32).unsqueeze(1).expand({n, 2}).contiguous();
  return TensorDataset({ids, pairs});
}

// The first field of each example, in order of reading.
template <class Data>
std::vector<int64_t> ids(const Data& data) {
  std::vector<int64_t> out;
  for (const Example& ex : data) {
    for (int64_t v : ex[0].template to_vector<int64_t>()) out.push_back(v);
  }
  return out;
}

std::vector<int64_t> iota(int64_t begin, int64_t end) {
  std::vector<int64_t> v(end - begin);
  std::iota(v.begin(), v.end(), begin);
  return v;
}

}  // namespace

TEST(Dataset, TensorDatasetSlicesAxisZero) {
  Dataset ds = numbers(5);
  EXPECT_EQ(ds.size(), 5);
  Example ex = ds.get(3);
  ASSERT_EQ(ex.size(), 2u);
  EXPECT_EQ(ex[0].dim(), 0);
  EXPECT_EQ(ex[0].item<int64_t>(), 3);
  EXPECT_EQ(ex[1].shape(), Shape({2}));
  EXPECT_EQ(ex[1].to_vector<float>(), (std::vector<float>{3, 3}));
  EXPECT_THROW(ds.get(5), Error);
  EXPECT_THROW(ds.get(-1), Error);
  EXPECT_THROW(TensorDataset({arange(3), arange(4)}), Error);
  EXPECT_EQ(ids(ds), iota(0, 5));
}

TEST(Dataset, ShuffleIsAReproduciblePermutation) {
  Dataset ds = numbers(100);
  std::vector<int64_t> a = ids(ds.shuffle(7)), b = ids(ds.shuffle(7)), c = ids(ds.shuffle(8));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, iota(0, 100));
  std::sort(a.begin(), a.end());
  EXPECT_EQ(a, iota(0, 100));
}

TEST(Dataset, BatchShapesAndLastBatch) {
  Dataset ds = numbers(10);
  Dataset kept = ds.batch(4);
  ASSERT_EQ(kept.size(), 3);
  EXPECT_EQ(kept.get(0)[0].shape(), Shape({4}));
  EXPECT_EQ(kept.get(0)[1].shape(), Shape({4, 2}));
  EXPECT_EQ(kept.get(2)[1].shape(), Shape({2, 2}));
  EXPECT_EQ(kept.get(2)[0].to_vector<int64_t>(), (std::vector<int64_t>{8, 9}));
  EXPECT_EQ(ids(kept), iota(0, 10));

  Dataset dropped = ds.batch(4, {.drop_last = true});
  EXPECT_EQ(dropped.size(), 2);
  EXPECT_EQ(ids(dropped), iota(0, 8));
  EXPECT_EQ(ids(ds.stream().batch(4, {.drop_last = true})), iota(0, 8));
  EXPECT_EQ(ids(ds.stream().batch(4)), iota(0, 10));
}

TEST(Dataset, BatchPadsVariableLengthSequences) {
  // Example i is the sequence [1, 2, ..., i + 1].
  Dataset seqs(3, [](int64_t i) { return Example{arange(1, static_cast<double>(i + 2), 1, kFloat32)}; });
  EXPECT_THROW(seqs.batch(3).get(0), Error);
  Example b = seqs.batch(3, {.pad = true, .pad_value = -1}).get(0);
  EXPECT_EQ(b[0].shape(), Shape({3, 3}));
  EXPECT_EQ(b[0].to_vector<float>(), (std::vector<float>{1, -1, -1, 1, 2, -1, 1, 2, 3}));
}

TEST(Dataset, ParallelMapKeepsOrder) {
  // Later examples finish first: without ordering, the output would come out reversed.
  MapFn slow_first = [](Example ex) {
    const int64_t i = ex[0].item<int64_t>();
    std::this_thread::sleep_for(std::chrono::microseconds(200 * (16 - i % 16)));
    ex[0] = scalar_tensor(static_cast<double>(i * 10), kInt64);
    return ex;
  };
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 40; ++i) expected.push_back(i * 10);
  EXPECT_EQ(ids(numbers(40).map(slow_first, 4)), expected);
  EXPECT_EQ(ids(numbers(40).stream().map(slow_first, 4)), expected);
  EXPECT_EQ(ids(numbers(40).map(slow_first, 4).batch(8)), expected);
}

TEST(Dataset, ParallelMapUsesThreadsAndPropagatesErrors) {
  std::mutex mutex;
  std::set<std::thread::id> seen;
  MapFn record = [&](Example ex) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::lock_guard<std::mutex> lock(mutex);
    seen.insert(std::this_thread::get_id());
    return ex;
  };
  for (const Example& ex : numbers(32).map(record, 4)) (void)ex;
  EXPECT_GT(seen.size(), 1u);
  MapFn fail = [](Example ex) -> Example {
    if (ex[0].item<int64_t>() == 5) throw Error("bad example 5");
    return ex;
  };
  EXPECT_THROW(ids(numbers(10).map(fail, 4)), Error);
  EXPECT_THROW(ids(numbers(10).stream().map(fail, 4)), Error);
}

TEST(Dataset, PrefetchYieldsTheSameSequence) {
  Dataset ds = numbers(50).shuffle(3);
  EXPECT_EQ(ids(ds.prefetch(3)), ids(ds));
  EXPECT_EQ(ids(ds.batch(7).prefetch(1)), ids(ds));
  // Abandoning a prefetching reader halfway must stop its thread cleanly.
  Reader r = ds.prefetch(2).open();
  ASSERT_TRUE(r.next().has_value());
  MapFn fail = [](Example ex) -> Example {
    if (ex[0].item<int64_t>() == 3) throw Error("bad example 3");
    return ex;
  };
  Reader failing = numbers(10).map(fail).prefetch(2).open();
  EXPECT_EQ(failing.next().value()[0].item<int64_t>(), 0);
  EXPECT_THROW({ while (failing.next()) {} }, Error);
}

// A prefetch thread, or an unordered map's worker, runs its tensor work on one thread: an OpenMP
// team of its own would slow every parallel region of the training loop beside it.
TEST(Dataset, PrefetchAndUnorderedMapThreadsRunTensorWorkOnOneThread) {
  std::mutex mutex;
  std::set<int> limits;
  MapFn note = [&](Example ex) {
    std::lock_guard lock(mutex);
    limits.insert(intra_op_thread_limit());
    return ex;
  };
  EXPECT_EQ(ids(numbers(20).stream().map(note).prefetch(2)), ids(numbers(20)));
  EXPECT_EQ(limits, std::set<int>{1});
  limits.clear();
  EXPECT_EQ(ids(numbers(20).stream().map(note, 3, false)).size(), 20u);
  EXPECT_EQ(limits, std::set<int>{1});
  limits.clear();
  EXPECT_EQ(ids(numbers(5).stream().map(note)), ids(numbers(5)));  // on the reading thread: no cap
  EXPECT_EQ(limits, std::set<int>{0});
}

TEST(Dataset, FilterTakeSkipRepeatConcatenateZip) {
  Dataset ds = numbers(10);
  Predicate even = [](const Example& ex) { return ex[0].item<int64_t>() % 2 == 0; };
  EXPECT_EQ(ids(ds.filter(even)), (std::vector<int64_t>{0, 2, 4, 6, 8}));
  EXPECT_EQ(ds.filter(even).size(), 5);
  EXPECT_EQ(ids(ds.stream().filter(even)), (std::vector<int64_t>{0, 2, 4, 6, 8}));
  EXPECT_EQ(ids(ds.skip(3).take(4)), iota(3, 7));
  EXPECT_EQ(ids(ds.stream().skip(3).take(4)), iota(3, 7));
  EXPECT_EQ(ds.take(20).size(), 10);
  EXPECT_EQ(ds.skip(20).size(), 0);
  EXPECT_EQ(ids(ds.stream().skip(20)), std::vector<int64_t>{});

  std::vector<int64_t> twice = iota(0, 10);
  twice.insert(twice.end(), twice.begin(), twice.end());
  EXPECT_EQ(ids(ds.repeat(2)), twice);
  EXPECT_EQ(ids(ds.stream().repeat(2)), twice);
  EXPECT_EQ(ids(ds.stream().repeat().take(20)), twice);
  EXPECT_EQ(ids(ds.take(0).stream().repeat()), std::vector<int64_t>{});  // ends, not a hang

  EXPECT_EQ(ids(ds.take(3).concatenate(ds.skip(7))), (std::vector<int64_t>{0, 1, 2, 7, 8, 9}));
  EXPECT_EQ(ids(ds.stream().take(3).concatenate(ds.stream().skip(7))), (std::vector<int64_t>{0, 1, 2, 7, 8, 9}));

  Dataset zipped = ds.zip(ds.shuffle(1).take(4));
  EXPECT_EQ(zipped.size(), 4);
  EXPECT_EQ(zipped.get(0).size(), 4u);
  EXPECT_EQ(zipped.get(2)[2].item<int64_t>(), ds.shuffle(1).get(2)[0].item<int64_t>());
  int count = 0;
  for (const Example& ex : ds.stream().zip(ds.stream().take(4))) {
    EXPECT_EQ(ex.size(), 4u);
    ++count;
  }
  EXPECT_EQ(count, 4);
}

TEST(Dataset, CacheComputesEachExampleOnce) {
  std::atomic<int> calls{0};
  Dataset counted = numbers(6).map([&](Example ex) {
    ++calls;
    return ex;
  });
  Dataset cached = counted.cache();
  EXPECT_EQ(ids(cached), iota(0, 6));
  EXPECT_EQ(ids(cached.shuffle(2).batch(4)).size(), 6u);
  EXPECT_EQ(calls.load(), 6);

  calls = 0;
  Stream cached_stream = counted.stream().cache();
  EXPECT_EQ(ids(cached_stream), iota(0, 6));
  EXPECT_EQ(ids(cached_stream.repeat(3)).size(), 18u);
  EXPECT_EQ(calls.load(), 6);
}

TEST(Dataset, StreamShuffleIsABufferedReproduciblePermutation) {
  Stream s = numbers(100).stream();
  std::vector<int64_t> a = ids(s.shuffle(10, 5)), b = ids(s.shuffle(10, 5));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, iota(0, 100));
  EXPECT_NE(a, ids(s.shuffle(10, 6)));
  // With a buffer of 10, example i cannot come out before position i - 9.
  for (size_t pos = 0; pos < a.size(); ++pos) EXPECT_LE(a[pos], static_cast<int64_t>(pos) + 9);
  std::sort(a.begin(), a.end());
  EXPECT_EQ(a, iota(0, 100));
}

TEST(Dataset, SameCodeRunsOnDatasetAndStream) {
  auto pipeline = [](const auto& data) {
    return ids(data.map([](Example ex) { return ex; }, 2).filter([](const Example&) { return true; }).batch(3).take(2));
  };
  EXPECT_EQ(pipeline(numbers(10)), pipeline(numbers(10).stream()));
  EXPECT_EQ(pipeline(numbers(10)), iota(0, 6));
}

TEST(Dataset, SplitFractions) {
  Dataset ds = numbers(103);
  std::vector<Dataset> parts = split(ds, {0.8, 0.1, 0.1}, 11);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].size(), 82);
  EXPECT_EQ(parts[1].size(), 10);
  EXPECT_EQ(parts[2].size(), 11);  // takes what rounding left
  std::vector<int64_t> all;
  for (const Dataset& p : parts) {
    auto v = ids(p);
    all.insert(all.end(), v.begin(), v.end());
  }
  EXPECT_NE(all, iota(0, 103));  // shuffled
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, iota(0, 103));
  EXPECT_EQ(ids(split(ds, {0.5}).at(0)), iota(0, 51));
  EXPECT_THROW(split(ds, {0.8, 0.3}), Error);
}

TEST(Dataset, KFoldsPartitionTheIndices) {
  const int64_t n = 23;
  const int k = 5;
  auto folds = kfold_indices(n, k, 4);
  ASSERT_EQ(folds.size(), static_cast<size_t>(k));
  std::vector<int64_t> all;
  for (const auto& f : folds) {
    EXPECT_TRUE(f.size() == 4 || f.size() == 5);
    all.insert(all.end(), f.begin(), f.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, iota(0, n));

  auto datasets = kfold(numbers(n), k, 4);
  for (int f = 0; f < k; ++f) {
    std::vector<int64_t> train = ids(datasets[f].train), val = ids(datasets[f].validation);
    EXPECT_EQ(val, folds[f]);
    EXPECT_EQ(train.size() + val.size(), static_cast<size_t>(n));
    std::set<int64_t> overlap(train.begin(), train.end());
    for (int64_t v : val) EXPECT_EQ(overlap.count(v), 0u);
  }
  EXPECT_THROW(kfold_indices(3, 5), Error);
}
