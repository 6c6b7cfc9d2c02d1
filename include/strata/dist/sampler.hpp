// Sharded data for data-parallel loops written by hand (PyTorch's DistributedSampler): each
// process takes its shard of a Dataset, a different one every epoch, with no communication.
// (train::fit with a DataParallel model shards each batch itself: give it the whole data.)
//
// Epoch e: the examples are permuted with seed + e (the same permutation on every process);
// the order is made a multiple of the process count by padding (repeating examples from its
// start, so some are seen twice in the epoch) or by dropping the last n % size; process r takes
// positions r, r + size, r + 2 size, ... So the shards of an epoch are disjoint (drop) or
// disjoint but for the padding (pad), and all have the same length, which keeps the processes'
// step counts equal: a process with one batch more would wait for ever in its all-reduce.
//   for (int64_t epoch = 0; epoch < epochs; ++epoch)
//     for (const auto& batch : dist::shard(train_set, epoch, {.seed = 42}).batch(32)) ...
#pragma once
#include <cstdint>
#include <vector>

#include "strata/data/dataset.hpp"
#include "strata/data/stream.hpp"

namespace strata::dist {

enum class Remainder { pad, drop };

struct ShardOptions {
  bool shuffle = true;  // false: positions in index order (evaluation)
  uint64_t seed = 0;    // the same on every process
  Remainder remainder = Remainder::pad;
};

// The example indices of `rank`'s shard of n examples in `epoch`, for a job of `size` processes.
std::vector<int64_t> shard_indices(int64_t n, int rank, int size, int64_t epoch, const ShardOptions& options = {});

// This process's shard of `dataset` in `epoch` (rank and size from dist::init()).
data::Dataset shard(const data::Dataset& dataset, int64_t epoch, const ShardOptions& options = {});

// A Stream's shard: every process reads the same stream (shuffle it before, with a shared seed)
// in rounds of `size` examples and keeps the rank-th of each; an incomplete last round is
// dropped, so every shard has the same length. Each process reads the whole stream.
data::Stream shard(const data::Stream& stream, int rank, int size);
data::Stream shard(const data::Stream& stream);  // rank and size from dist::init()

}  // namespace strata::dist
