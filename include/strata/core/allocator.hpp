// A caching CPU allocator: freed buffers are kept by size class and handed out again, so
// steady-state training allocates nothing from the system (and never pays glibc's mmap/munmap
// for large tensors). Buffers are 64-byte aligned for vector loads.
#pragma once
#include <cstddef>

namespace strata {

struct AllocatorStats {
  size_t system_allocations = 0;  // buffers obtained from the system
  size_t cache_hits = 0;          // allocations served from the cache
  size_t cached_bytes = 0;        // bytes held in the cache right now
};

class CpuAllocator {
 public:
  static void* allocate(size_t nbytes);
  static void deallocate(void* p, size_t nbytes);
  static AllocatorStats stats();
  static void empty_cache();  // returns every cached buffer to the system
};

}  // namespace strata
