#include "kernels/cuda/block_cache.hpp"

#include <utility>

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

BlockCache::BlockCache(std::function<void*(size_t)> system_allocate, std::function<void(void*)> system_free)
    : system_allocate_(std::move(system_allocate)), system_free_(std::move(system_free)) {}

BlockCache::~BlockCache() { empty(); }

size_t BlockCache::rounded_size(size_t nbytes) {
  constexpr size_t small = 512, large = size_t{2} << 20, large_from = size_t{1} << 20;
  const size_t unit = nbytes >= large_from ? large : small;
  return (nbytes + unit - 1) / unit * unit;
}

void* BlockCache::allocate(size_t nbytes) {
  if (nbytes == 0) return nullptr;
  const size_t size = rounded_size(nbytes);
  std::lock_guard lock(mutex_);
  auto it = free_.find(size);
  if (it != free_.end() && !it->second.empty()) {
    void* p = it->second.back();
    it->second.pop_back();
    ++stats_.cache_hits;
    stats_.cached_bytes -= size;
    return p;
  }
  void* p = system_allocate_(size);
  if (!p) {  // out of memory: what the cache holds may be enough once returned
    empty_locked();
    p = system_allocate_(size);
  }
  if (p) ++stats_.system_allocations;
  return p;
}

void BlockCache::deallocate(void* p, size_t nbytes) {
  if (!p) return;
  const size_t size = rounded_size(nbytes);
  std::lock_guard lock(mutex_);
  free_[size].push_back(p);
  stats_.cached_bytes += size;
}

void BlockCache::empty() {
  std::lock_guard lock(mutex_);
  empty_locked();
}

void BlockCache::empty_locked() {
  for (auto& [size, blocks] : free_)
    for (void* p : blocks) system_free_(p);
  free_.clear();
  stats_.cached_bytes = 0;
}

AllocatorStats BlockCache::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
