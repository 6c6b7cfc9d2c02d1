// Stream: data read in order, possibly without end (a generator, a file read as it grows,
// online data). A Stream is a recipe: each open() starts a fresh pass with its own Reader, so
// repeat() and cache() can read it again. Its combinators have the same names and meanings as
// Dataset's, so a pipeline written for one runs on the other.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "strata/data/batch.hpp"
#include "strata/data/example.hpp"

namespace strata::data {

using MapFn = std::function<Example(Example)>;
using Predicate = std::function<bool(const Example&)>;

class Stream {
 public:
  using OpenFn = std::function<Reader()>;

  Stream() = default;  // the empty stream
  explicit Stream(OpenFn open) : open_(std::move(open)) {}
  // A finite stream over examples held in memory.
  static Stream from_examples(std::vector<Example> examples);

  // Starts a pass. Readers of one stream are independent, unless the source itself is shared
  // (an AppendableStream's readers share its buffer, not their positions).
  Reader open() const { return open_ ? open_() : Reader(); }
  ExampleIterator begin() const { return ExampleIterator(open()); }
  ExampleIterator end() const { return {}; }

  // fn applied to each example. With threads > 1, fn runs on that many threads (fn must be
  // thread-safe): keep_order maps chunks of 4 * threads examples and keeps the input's order;
  // without it, examples come out as soon as they are mapped (a slow example does not hold up
  // the others; the order then varies from run to run).
  Stream map(MapFn fn, int threads = 1, bool keep_order = true) const;
  Stream filter(Predicate keep) const;
  // Buffered shuffle: keeps buffer_size examples and emits a random one of them each time.
  // Each pass gives the same order for the same seed.
  Stream shuffle(int64_t buffer_size, uint64_t seed) const;
  // Examples stacked batch_size at a time (see collate); the last batch may be smaller.
  Stream batch(int64_t batch_size, BatchOptions options = {}) const;
  // Reads ahead on a background thread, keeping at most `capacity` examples in memory.
  // Errors in the producer come out of the consumer's next().
  Stream prefetch(int64_t capacity = 2) const;
  // The first complete pass is kept in memory; later passes replay it without reading the source.
  Stream cache() const;
  // The whole stream `times` times; -1 repeats it forever.
  Stream repeat(int64_t times = -1) const;
  Stream take(int64_t n) const;
  Stream skip(int64_t n) const;
  // Pairs examples (their tensors concatenated: a's then b's) until either stream ends.
  Stream zip(const Stream& other) const;
  // This stream, then the other.
  Stream concatenate(const Stream& other) const;
  // tf.data's interleave: each example of this stream opens a sub-stream fn(example); the
  // output takes block_length examples from each of cycle_length open sub-streams in turn, and
  // a sub-stream that ends is replaced by the next example's when its turn comes back.
  Stream interleave(std::function<Stream(const Example&)> fn, int64_t cycle_length, int64_t block_length = 1) const;
  // Like cache(), but the first complete pass is written to the file at `path`, which later
  // passes and other processes read instead of the source. The file is written under a
  // temporary name and renamed when the pass ends, so an interrupted pass leaves no cache.
  Stream cache(const std::string& path) const;

 private:
  Stream map_unordered(MapFn fn, int threads) const;
  OpenFn open_;
};

}  // namespace strata::data
