#include "strata/data/stream.hpp"

#include <algorithm>
#include <mutex>
#include <random>

#include "parallel_map.hpp"

namespace strata::data {

Stream Stream::from_examples(std::vector<Example> examples) {
  auto shared = std::make_shared<const std::vector<Example>>(std::move(examples));
  return Stream([shared] {
    auto pos = std::make_shared<size_t>(0);
    return Reader([shared, pos]() -> std::optional<Example> {
      if (*pos == shared->size()) return std::nullopt;
      return (*shared)[(*pos)++];
    });
  });
}

Stream Stream::map(MapFn fn, int threads, bool keep_order) const {
  STRATA_CHECK(threads >= 1, "Stream::map: threads must be >= 1, got ", threads);
  if (!keep_order && threads > 1) return map_unordered(std::move(fn), threads);
  Stream src = *this;
  if (threads == 1)
    return Stream([src, fn] {
      auto reader = std::make_shared<Reader>(src.open());
      return Reader([reader, fn]() -> std::optional<Example> {
        auto ex = reader->next();
        if (!ex) return std::nullopt;
        return fn(std::move(*ex));
      });
    });
  // Several threads: map a chunk of examples at once, then hand them out in order.
  return Stream([src, fn, threads] {
    struct Pass {
      Reader reader;
      std::vector<Example> chunk;
      size_t pos = 0;
      bool ended = false;
    };
    auto pass = std::make_shared<Pass>(Pass{src.open(), {}, 0, false});
    return Reader([pass, fn, threads]() -> std::optional<Example> {
      if (pass->pos == pass->chunk.size()) {
        pass->chunk.clear();
        pass->pos = 0;
        while (!pass->ended && pass->chunk.size() < static_cast<size_t>(4 * threads)) {
          auto ex = pass->reader.next();
          if (ex) pass->chunk.push_back(std::move(*ex));
          else pass->ended = true;
        }
        if (pass->chunk.empty()) return std::nullopt;
        detail::parallel_map(pass->chunk, fn, threads);
      }
      return std::move(pass->chunk[pass->pos++]);
    });
  });
}

Stream Stream::filter(Predicate keep) const {
  Stream src = *this;
  return Stream([src, keep] {
    auto reader = std::make_shared<Reader>(src.open());
    return Reader([reader, keep]() -> std::optional<Example> {
      while (auto ex = reader->next())
        if (keep(*ex)) return ex;
      return std::nullopt;
    });
  });
}

Stream Stream::shuffle(int64_t buffer_size, uint64_t seed) const {
  STRATA_CHECK(buffer_size >= 1, "Stream::shuffle: buffer_size must be >= 1, got ", buffer_size);
  Stream src = *this;
  return Stream([src, buffer_size, seed] {
    struct Pass {
      Reader reader;
      std::vector<Example> buffer;
      std::mt19937_64 rng;
    };
    auto pass = std::make_shared<Pass>(Pass{src.open(), {}, std::mt19937_64(seed)});
    return Reader([pass, buffer_size]() -> std::optional<Example> {
      while (static_cast<int64_t>(pass->buffer.size()) < buffer_size) {
        auto ex = pass->reader.next();
        if (!ex) break;
        pass->buffer.push_back(std::move(*ex));
      }
      if (pass->buffer.empty()) return std::nullopt;
      const size_t k = pass->rng() % pass->buffer.size();
      std::swap(pass->buffer[k], pass->buffer.back());
      Example out = std::move(pass->buffer.back());
      pass->buffer.pop_back();
      return out;
    });
  });
}

Stream Stream::batch(int64_t batch_size, BatchOptions options) const {
  STRATA_CHECK(batch_size >= 1, "Stream::batch: batch_size must be >= 1, got ", batch_size);
  Stream src = *this;
  return Stream([src, batch_size, options] {
    auto reader = std::make_shared<Reader>(src.open());
    return Reader([reader, batch_size, options]() -> std::optional<Example> {
      std::vector<Example> examples;
      while (static_cast<int64_t>(examples.size()) < batch_size) {
        auto ex = reader->next();
        if (!ex) break;
        examples.push_back(std::move(*ex));
      }
      if (examples.empty()) return std::nullopt;
      if (options.drop_last && static_cast<int64_t>(examples.size()) < batch_size) return std::nullopt;
      return collate(examples, options);
    });
  });
}

Stream Stream::cache() const {
  struct Store {
    std::mutex mutex;
    std::vector<Example> examples;
    bool complete = false;
    bool filling = false;  // one pass records; passes running beside it read the source
  };
  auto store = std::make_shared<Store>();
  Stream src = *this;
  return Stream([src, store] {
    std::unique_lock<std::mutex> lock(store->mutex);
    if (store->complete) return Stream::from_examples(store->examples).open();
    if (store->filling) return src.open();
    store->filling = true;
    lock.unlock();
    auto reader = std::make_shared<Reader>(src.open());
    auto recorded = std::make_shared<std::vector<Example>>();
    return Reader([reader, recorded, store]() -> std::optional<Example> {
      auto ex = reader->next();
      if (ex) {
        recorded->push_back(*ex);
      } else {
        std::lock_guard<std::mutex> guard(store->mutex);
        if (!store->complete) {
          store->examples = std::move(*recorded);
          store->complete = true;
        }
      }
      return ex;
    });
  });
}

Stream Stream::repeat(int64_t times) const {
  STRATA_CHECK(times >= -1, "Stream::repeat: times must be >= 0, or -1 for forever, got ", times);
  Stream src = *this;
  return Stream([src, times] {
    struct Pass {
      Stream src;
      Reader reader;
      int64_t started = 0;
    };
    auto pass = std::make_shared<Pass>(Pass{src, {}, 0});
    return Reader([pass, times]() -> std::optional<Example> {
      for (int64_t empty_passes = 0;;) {
        if (pass->started > 0) {
          if (auto ex = pass->reader.next()) return ex;
          ++empty_passes;
        }
        // An empty source would otherwise loop forever.
        if ((times >= 0 && pass->started >= times) || empty_passes > 1) return std::nullopt;
        pass->reader = pass->src.open();
        ++pass->started;
      }
    });
  });
}

Stream Stream::take(int64_t n) const {
  STRATA_CHECK(n >= 0, "Stream::take: n must be >= 0, got ", n);
  Stream src = *this;
  return Stream([src, n] {
    auto reader = std::make_shared<Reader>(src.open());
    auto count = std::make_shared<int64_t>(0);
    return Reader([reader, count, n]() -> std::optional<Example> {
      if (*count >= n) return std::nullopt;
      ++*count;
      return reader->next();
    });
  });
}

Stream Stream::skip(int64_t n) const {
  STRATA_CHECK(n >= 0, "Stream::skip: n must be >= 0, got ", n);
  Stream src = *this;
  return Stream([src, n] {
    auto reader = std::make_shared<Reader>(src.open());
    auto skipped = std::make_shared<bool>(false);
    return Reader([reader, skipped, n]() -> std::optional<Example> {
      if (!*skipped) {
        *skipped = true;
        for (int64_t i = 0; i < n; ++i)
          if (!reader->next()) return std::nullopt;
      }
      return reader->next();
    });
  });
}

Stream Stream::zip(const Stream& other) const {
  Stream a = *this, b = other;
  return Stream([a, b] {
    auto ra = std::make_shared<Reader>(a.open());
    auto rb = std::make_shared<Reader>(b.open());
    return Reader([ra, rb]() -> std::optional<Example> {
      auto x = ra->next();
      if (!x) return std::nullopt;
      auto y = rb->next();
      if (!y) return std::nullopt;
      x->insert(x->end(), y->begin(), y->end());
      return x;
    });
  });
}

Stream Stream::concatenate(const Stream& other) const {
  Stream a = *this, b = other;
  return Stream([a, b] {
    auto ra = std::make_shared<Reader>(a.open());
    auto rb = std::make_shared<std::optional<Reader>>();
    return Reader([ra, rb, b]() -> std::optional<Example> {
      if (!*rb) {
        if (auto ex = ra->next()) return ex;
        *rb = b.open();
      }
      return (*rb)->next();
    });
  });
}

}  // namespace strata::data
