// Dataset: random-access data of known size (get(i) for i in [0, size)). Combinators return new
// Datasets that read the original lazily (no copy), except filter, which decides once which
// examples to keep. Iterating a Dataset, or turning it into a Stream, reads it in index order.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "strata/data/stream.hpp"

namespace strata::data {

class Dataset {
 public:
  using GetFn = std::function<Example(int64_t)>;
  // get must be safe to call from several threads at once (map reads its source in parallel).
  Dataset(int64_t size, GetFn get);

  int64_t size() const { return impl_->size; }
  // Throws strata::Error for an index outside [0, size).
  Example get(int64_t index) const;
  std::vector<Example> get_many(const std::vector<int64_t>& indices) const;

  Reader open() const;  // one pass in index order
  Stream stream() const;
  ExampleIterator begin() const { return ExampleIterator(open()); }
  ExampleIterator end() const { return {}; }

  // Same names and meanings as Stream's; the differences are noted.
  // map: fn runs on `threads` threads when several examples are read at once (batch, iteration).
  Dataset map(MapFn fn, int threads = 1) const;
  // filter: runs `keep` over every example now, once.
  Dataset filter(Predicate keep) const;
  // shuffle: a full random permutation, the same for the same seed (use seed + epoch for a new
  // order each epoch).
  Dataset shuffle(uint64_t seed) const;
  Dataset batch(int64_t batch_size, BatchOptions options = {}) const;
  Stream prefetch(int64_t capacity = 2) const;
  // cache: each example is computed at most once, then kept in memory.
  Dataset cache() const;
  // cache(path): the first read computes every example once and writes them to the file at
  // `path` (under a temporary name, renamed when complete: an interrupted run leaves no
  // cache); reads then come from the file, in this process and in later ones. A file that is
  // there already is used as it is: delete it when the source changes.
  Dataset cache(const std::string& path) const;
  // repeat: a finite count here; stream().repeat() repeats forever.
  Dataset repeat(int64_t times) const;
  Dataset take(int64_t n) const;
  Dataset skip(int64_t n) const;
  Dataset zip(const Dataset& other) const;  // size: the smaller of the two
  Dataset concatenate(const Dataset& other) const;
  // A Stream: interleaving reads the sub-streams in turn (see Stream::interleave).
  Stream interleave(std::function<Stream(const Example&)> fn, int64_t cycle_length, int64_t block_length = 1) const {
    return stream().interleave(std::move(fn), cycle_length, block_length);
  }
  // The examples at `indices`, in that order.
  Dataset subset(std::vector<int64_t> indices) const;

 private:
  using ManyFn = std::function<std::vector<Example>(const std::vector<int64_t>&)>;
  struct Impl {
    int64_t size;
    GetFn get;
    ManyFn get_many;     // empty: one get per index
    int64_t read_ahead;  // how many examples a pass asks for at once
  };
  explicit Dataset(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  // A dataset whose example i is this one's example index(i).
  Dataset remapped(int64_t size, std::function<int64_t(int64_t)> index) const;
  std::shared_ptr<const Impl> impl_;
};

// Example i is {t[i] for t in tensors}: slices along axis 0, which all tensors must share.
class TensorDataset : public Dataset {
 public:
  explicit TensorDataset(std::vector<Tensor> tensors);
};

// Consecutive parts of the (shuffled, when a seed is given) dataset, sized by fractions that add
// up to at most 1, e.g. {0.8, 0.1, 0.1} for train/validation/test. Sizes are rounded down, and
// what rounding leaves goes to the last part when the fractions add up to 1.
std::vector<Dataset> split(const Dataset& dataset, const std::vector<double>& fractions,
                           std::optional<uint64_t> shuffle_seed = std::nullopt);

// k-fold cross-validation: fold i validates on the i-th of k nearly equal parts and trains on
// the rest. kfold_indices gives the validation indices of each fold (they partition [0, n)).
struct Fold {
  Dataset train;
  Dataset validation;
};
std::vector<std::vector<int64_t>> kfold_indices(int64_t n, int k, std::optional<uint64_t> shuffle_seed = std::nullopt);
std::vector<Fold> kfold(const Dataset& dataset, int k, std::optional<uint64_t> shuffle_seed = std::nullopt);

// A deterministic random permutation of [0, n) for a seed (the same on every platform).
std::vector<int64_t> permutation(int64_t n, uint64_t seed);

}  // namespace strata::data
