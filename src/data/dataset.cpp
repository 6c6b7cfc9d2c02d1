#include "strata/data/dataset.hpp"

#include <algorithm>
#include <mutex>
#include <random>

#include "parallel_map.hpp"

namespace strata::data {

Dataset::Dataset(int64_t size, GetFn get)
    : impl_(std::make_shared<const Impl>(Impl{size, std::move(get), {}, 1})) {
  STRATA_CHECK(size >= 0, "Dataset: size must be >= 0, got ", size);
}

Example Dataset::get(int64_t index) const {
  STRATA_CHECK(index >= 0 && index < impl_->size, "Dataset: index ", index, " out of range for a dataset of ",
               impl_->size, " examples");
  return impl_->get(index);
}

std::vector<Example> Dataset::get_many(const std::vector<int64_t>& indices) const {
  for (int64_t i : indices)
    STRATA_CHECK(i >= 0 && i < impl_->size, "Dataset: index ", i, " out of range for a dataset of ", impl_->size,
                 " examples");
  if (impl_->get_many) return impl_->get_many(indices);
  std::vector<Example> out;
  out.reserve(indices.size());
  for (int64_t i : indices) out.push_back(impl_->get(i));
  return out;
}

Reader Dataset::open() const {
  // Reads read_ahead examples at a time so that a parallel map has work for all its threads.
  struct Pass {
    Dataset dataset;
    int64_t next = 0;
    std::vector<Example> chunk;
    size_t pos = 0;
  };
  auto pass = std::make_shared<Pass>(Pass{*this, 0, {}, 0});
  return Reader([pass]() -> std::optional<Example> {
    if (pass->pos == pass->chunk.size()) {
      const int64_t n = std::min(pass->dataset.impl_->read_ahead, pass->dataset.size() - pass->next);
      if (n <= 0) return std::nullopt;
      std::vector<int64_t> indices(n);
      for (int64_t k = 0; k < n; ++k) indices[k] = pass->next + k;
      pass->next += n;
      pass->chunk = pass->dataset.get_many(indices);
      pass->pos = 0;
    }
    return std::move(pass->chunk[pass->pos++]);
  });
}

Stream Dataset::stream() const {
  Dataset self = *this;
  return Stream([self] { return self.open(); });
}

Dataset Dataset::remapped(int64_t size, std::function<int64_t(int64_t)> index) const {
  Dataset src = *this;
  auto get = [src, index](int64_t i) { return src.impl_->get(index(i)); };
  auto many = [src, index](const std::vector<int64_t>& indices) {
    std::vector<int64_t> mapped(indices.size());
    std::transform(indices.begin(), indices.end(), mapped.begin(), index);
    return src.get_many(mapped);
  };
  return Dataset(std::make_shared<const Impl>(Impl{size, get, many, impl_->read_ahead}));
}

Dataset Dataset::map(MapFn fn, int threads) const {
  STRATA_CHECK(threads >= 1, "Dataset::map: threads must be >= 1, got ", threads);
  Dataset src = *this;
  auto get = [src, fn](int64_t i) { return fn(src.impl_->get(i)); };
  auto many = [src, fn, threads](const std::vector<int64_t>& indices) {
    std::vector<Example> examples = src.get_many(indices);
    detail::parallel_map(examples, fn, threads);
    return examples;
  };
  const int64_t read_ahead = threads > 1 ? std::max<int64_t>(impl_->read_ahead, 4 * threads) : impl_->read_ahead;
  return Dataset(std::make_shared<const Impl>(Impl{size(), get, many, read_ahead}));
}

Dataset Dataset::filter(Predicate keep) const {
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < size(); ++i)
    if (keep(impl_->get(i))) kept.push_back(i);
  return subset(std::move(kept));
}

Dataset Dataset::subset(std::vector<int64_t> indices) const {
  for (int64_t i : indices)
    STRATA_CHECK(i >= 0 && i < size(), "Dataset::subset: index ", i, " out of range for a dataset of ", size(),
                 " examples");
  auto shared = std::make_shared<const std::vector<int64_t>>(std::move(indices));
  return remapped(static_cast<int64_t>(shared->size()), [shared](int64_t i) { return (*shared)[i]; });
}

std::vector<int64_t> permutation(int64_t n, uint64_t seed) {
  // Fisher-Yates with our own index draw: std::shuffle's algorithm differs between libraries.
  std::vector<int64_t> p(n);
  for (int64_t i = 0; i < n; ++i) p[i] = i;
  std::mt19937_64 rng(seed);
  for (int64_t i = n - 1; i > 0; --i) std::swap(p[i], p[rng() % static_cast<uint64_t>(i + 1)]);
  return p;
}

Dataset Dataset::shuffle(uint64_t seed) const { return subset(permutation(size(), seed)); }

Dataset Dataset::batch(int64_t batch_size, BatchOptions options) const {
  STRATA_CHECK(batch_size >= 1, "Dataset::batch: batch_size must be >= 1, got ", batch_size);
  const int64_t n = options.drop_last ? size() / batch_size : (size() + batch_size - 1) / batch_size;
  Dataset src = *this;
  auto get = [src, batch_size, options](int64_t b) {
    const int64_t begin = b * batch_size, end = std::min(begin + batch_size, src.size());
    std::vector<int64_t> indices(end - begin);
    for (int64_t k = 0; k < end - begin; ++k) indices[k] = begin + k;
    return collate(src.get_many(indices), options);
  };
  return Dataset(n, get);
}

Stream Dataset::prefetch(int64_t capacity) const { return stream().prefetch(capacity); }

Dataset Dataset::cache() const {
  struct Store {
    std::mutex mutex;
    std::vector<std::optional<Example>> examples;
  };
  auto store = std::make_shared<Store>();
  store->examples.resize(size());
  Dataset src = *this;
  auto get = [src, store](int64_t i) {
    {
      std::lock_guard<std::mutex> lock(store->mutex);
      if (store->examples[i]) return *store->examples[i];
    }
    Example ex = src.impl_->get(i);  // outside the lock: other examples may be computed meanwhile
    std::lock_guard<std::mutex> lock(store->mutex);
    if (!store->examples[i]) store->examples[i] = ex;
    return *store->examples[i];
  };
  return Dataset(std::make_shared<const Impl>(Impl{size(), get, {}, impl_->read_ahead}));
}

Dataset Dataset::repeat(int64_t times) const {
  STRATA_CHECK(times >= 0, "Dataset::repeat: times must be >= 0 (stream().repeat() repeats forever), got ", times);
  const int64_t n = size();
  return remapped(n * times, [n](int64_t i) { return i % n; });
}

Dataset Dataset::take(int64_t n) const {
  STRATA_CHECK(n >= 0, "Dataset::take: n must be >= 0, got ", n);
  return remapped(std::min(n, size()), [](int64_t i) { return i; });
}

Dataset Dataset::skip(int64_t n) const {
  STRATA_CHECK(n >= 0, "Dataset::skip: n must be >= 0, got ", n);
  const int64_t start = std::min(n, size());
  return remapped(size() - start, [start](int64_t i) { return i + start; });
}

Dataset Dataset::zip(const Dataset& other) const {
  Dataset a = *this, b = other;
  return Dataset(std::min(a.size(), b.size()), [a, b](int64_t i) {
    Example ex = a.impl_->get(i);
    Example second = b.impl_->get(i);
    ex.insert(ex.end(), second.begin(), second.end());
    return ex;
  });
}

Dataset Dataset::concatenate(const Dataset& other) const {
  Dataset a = *this, b = other;
  return Dataset(a.size() + b.size(),
                 [a, b](int64_t i) { return i < a.size() ? a.impl_->get(i) : b.impl_->get(i - a.size()); });
}

}  // namespace strata::data
