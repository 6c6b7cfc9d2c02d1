#include "strata/dist/sampler.hpp"

#include <memory>
#include <numeric>
#include <optional>

#include "strata/core/error.hpp"
#include "strata/dist/world.hpp"

namespace strata::dist {

std::vector<int64_t> shard_indices(int64_t n, int rank, int size, int64_t epoch, const ShardOptions& options) {
  STRATA_CHECK(size >= 1 && rank >= 0 && rank < size, "dist::shard: rank ", rank, " is not a rank of a job of ",
               size, " processes");
  STRATA_CHECK(epoch >= 0, "dist::shard: epoch must be >= 0, got ", epoch);
  STRATA_CHECK(n >= size, "dist::shard: ", n, " examples cannot give each of ", size,
               " processes at least one; use fewer processes or more data");
  std::vector<int64_t> order(n);
  if (options.shuffle) {
    order = data::permutation(n, options.seed + static_cast<uint64_t>(epoch));
  } else {
    std::iota(order.begin(), order.end(), 0);
  }
  const int64_t total = options.remainder == Remainder::pad ? (n + size - 1) / size * size : n / size * size;
  for (int64_t i = n; i < total; ++i) order.push_back(order[i - n]);  // pad: fewer than size extra
  std::vector<int64_t> mine;
  mine.reserve(total / size);
  for (int64_t i = rank; i < total; i += size) mine.push_back(order[i]);
  return mine;
}

data::Dataset shard(const data::Dataset& dataset, int64_t epoch, const ShardOptions& options) {
  const World& w = world();
  return dataset.subset(shard_indices(dataset.size(), w.rank, w.size, epoch, options));
}

data::Stream shard(const data::Stream& stream, int rank, int size) {
  STRATA_CHECK(size >= 1 && rank >= 0 && rank < size, "dist::shard: rank ", rank, " is not a rank of a job of ",
               size, " processes");
  return data::Stream([stream, rank, size] {
    auto source = std::make_shared<data::Reader>(stream.open());
    return data::Reader([source, rank, size]() -> std::optional<data::Example> {
      std::optional<data::Example> mine;
      for (int i = 0; i < size; ++i) {
        std::optional<data::Example> ex = source->next();
        if (!ex) return std::nullopt;  // an incomplete round: dropped on every rank
        if (i == rank) mine = std::move(ex);
      }
      return mine;
    });
  });
}

data::Stream shard(const data::Stream& stream) {
  const World& w = world();
  return shard(stream, w.rank, w.size);
}

}  // namespace strata::dist
