#include "strata/core/allocator.hpp"

#include <pthread.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "strata/core/error.hpp"

namespace strata {
namespace {

constexpr size_t kAlign = 64;
// Buffers above this are cached too, but the cache keeps at most this many bytes in total,
// so a one-off huge tensor does not pin memory forever.
constexpr size_t kMaxCachedBytes = size_t(2) << 30;

// Size classes: multiples of 64 B below 4 KiB, then quarter steps between powers of two
// (at most 25% waste), so tensors of nearby sizes reuse each other's buffers.
size_t size_class(size_t n) {
  if (n <= 4096) return (n + kAlign - 1) / kAlign * kAlign;
  size_t p = 1;
  while (p < n) p <<= 1;
  size_t step = p / 8;  // p/2 < n <= p: quarters of the interval (p/2, p]
  return (n + step - 1) / step * step;
}

struct Cache {
  std::mutex mu;
  std::map<size_t, std::vector<void*>> free;  // size class -> buffers
  AllocatorStats stats;
};

Cache& cache() {
  static Cache* c = [] {
    auto* made = new Cache();  // never destroyed: tensors may outlive static destruction
    // A fork while another thread held the lock would leave the child's allocator locked for
    // good (io::run_in_child_process forks to read hostile files): the forking thread holds it
    // across the fork instead, and both sides release it.
    pthread_atfork([] { cache().mu.lock(); }, [] { cache().mu.unlock(); }, [] { cache().mu.unlock(); });
    return made;
  }();
  return *c;
}

// Made while the library loads, before main can start a thread: a fork while another thread is
// inside the first cache() call would leave the child waiting for good on the static's guard
// (seen once under ASan in Hdf5ReaderProcess.ForkingWhileAnotherThreadAllocatesDoesNotHang).
[[maybe_unused]] const Cache& cache_made_at_load = cache();

}  // namespace

void* CpuAllocator::allocate(size_t nbytes) {
  size_t cls = size_class(nbytes == 0 ? 1 : nbytes);
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.free.find(cls);
    if (it != c.free.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      c.stats.cache_hits++;
      c.stats.cached_bytes -= cls;
      return p;
    }
    c.stats.system_allocations++;
  }
  void* p = std::aligned_alloc(kAlign, cls);
  if (!p) {
    empty_cache();
    p = std::aligned_alloc(kAlign, cls);
    if (!p)
      throw OutOfMemoryError("out of memory: cannot allocate " + std::to_string(nbytes) + " bytes (" +
                             std::to_string(nbytes >> 20) +
                             " MiB) for a tensor: the machine's memory or this process's limit (ulimit -v, a "
                             "cgroup) is exhausted");
  }
  return p;
}

void CpuAllocator::deallocate(void* p, size_t nbytes) {
  if (!p) return;
  size_t cls = size_class(nbytes == 0 ? 1 : nbytes);
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    if (c.stats.cached_bytes + cls <= kMaxCachedBytes) {
      c.free[cls].push_back(p);
      c.stats.cached_bytes += cls;
      return;
    }
  }
  std::free(p);
}

AllocatorStats CpuAllocator::stats() {
  std::lock_guard<std::mutex> lock(cache().mu);
  return cache().stats;
}

void CpuAllocator::empty_cache() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  for (auto& [cls, bufs] : c.free)
    for (void* p : bufs) std::free(p);
  c.free.clear();
  c.stats.cached_bytes = 0;
}

}  // namespace strata
