// Device memory: a DeviceAllocator per device type gives Storage its bytes and copies them to and
// from the host. The CPU's is the caching CpuAllocator below; a backend registers its own
// (kernels/cuda, a test's custom device) with register_allocator. Meta tensors have none.
#pragma once
#include <cstddef>
#include <string>

#include "strata/core/device.hpp"

namespace strata {

struct AllocatorStats {
  size_t system_allocations = 0;  // buffers obtained from the system
  size_t cache_hits = 0;          // allocations served from the cache
  size_t cached_bytes = 0;        // bytes held in the cache right now
};

class DeviceAllocator {
 public:
  virtual ~DeviceAllocator() = default;
  // nbytes on device `index` of this allocator's type; 64-byte aligned. deallocate(nullptr, n)
  // does nothing.
  virtual void* allocate(size_t nbytes, int index) = 0;
  virtual void deallocate(void* p, size_t nbytes, int index) = 0;
  // True when host code may read and write this memory directly (then the copies are memcpy and
  // CPU kernels may run on it).
  virtual bool host_accessible() const = 0;
  // Synchronous copies between this device's memory and host memory.
  virtual void copy_to_host(void* host, const void* device, size_t nbytes, int index) = 0;
  virtual void copy_from_host(void* device, const void* host, size_t nbytes, int index) = 0;
  // What a caching allocator holds and has done (zeros for one that does not cache), and
  // returning its cached blocks to the system.
  virtual AllocatorStats stats() const { return {}; }
  virtual void empty_cache() {}
};

// Makes `allocator` (which must outlive every tensor on its devices) the memory of `type`.
void register_allocator(DeviceType type, DeviceAllocator* allocator);
// The allocator of `device`'s type; throws strata::Error naming the device when none is registered.
DeviceAllocator& allocator_for(Device device);
// Whether a backend registered memory for `type`. Asking about CUDA loads the CUDA backend
// (docs/cuda.md), which registers itself only when it finds a GPU.
bool device_available(DeviceType type);
// Why `type` is not available ("" when it is): the backend missing, or no GPU found.
std::string device_unavailable_reason(DeviceType type);
// For a backend that found no device: the reason allocator_for's error gives.
void note_device_unavailable(DeviceType type, const std::string& reason);

// A caching CPU allocator: freed buffers are kept by size class and handed out again, so
// steady-state training allocates nothing from the system (and never pays glibc's mmap/munmap
// for large tensors). Buffers are 64-byte aligned for vector loads.
class CpuAllocator {
 public:
  static void* allocate(size_t nbytes);
  static void deallocate(void* p, size_t nbytes);
  static AllocatorStats stats();
  static void empty_cache();  // returns every cached buffer to the system
};

}  // namespace strata
