// The free list of a caching device allocator (PyTorch's CUDACachingAllocator in miniature):
// freed blocks are kept by rounded size and handed out again, so a training step allocates
// nothing from cudaMalloc, which synchronises the device, once the first step has run. Plain
// host code, so that tests/cuda checks it on machines without a GPU.
#pragma once
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#include "kernels/cuda/portable.hpp"
#include "strata/core/allocator.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

class BlockCache {
 public:
  // `system_allocate` returns nullptr when the device is out of memory; the cache then frees
  // its cached blocks and tries once more.
  BlockCache(std::function<void*(size_t)> system_allocate, std::function<void(void*)> system_free);
  ~BlockCache();  // returns every cached block
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  // A block of at least `nbytes` (rounded up by rounded_size); nullptr only when the system has
  // no memory even after the cache was emptied. `nbytes` 0 gives nullptr.
  void* allocate(size_t nbytes);
  // Keeps `p`, which allocate(nbytes) returned, for the next request of the same rounded size.
  void deallocate(void* p, size_t nbytes);
  void empty();  // returns every cached block to the system
  AllocatorStats stats() const;

  // Sizes are rounded up to 512 bytes, and from 1 MiB to 2 MiB multiples: fewer distinct sizes,
  // so freed blocks are reused across steps whose shapes differ slightly.
  static size_t rounded_size(size_t nbytes);

 private:
  void empty_locked();

  std::function<void*(size_t)> system_allocate_;
  std::function<void(void*)> system_free_;
  mutable std::mutex mutex_;
  std::map<size_t, std::vector<void*>> free_;  // rounded size -> blocks
  AllocatorStats stats_;
};

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
