// The CUDA device's memory: cudaMalloc behind a BlockCache, copies on the backend's stream.
#include "kernels/cuda/runtime/device_memory.hpp"

#include <string>

#include "kernels/cuda/block_cache.hpp"
#include "kernels/cuda/runtime/pinned_staging.hpp"
#include "kernels/cuda/runtime/runtime.hpp"
#include "strata/core/error.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {
namespace {

// nullptr when the GPU's memory is used up (the cache then returns its blocks and tries again);
// any other failure (a fault left by an earlier kernel, a lost device) is raised as it is, not
// reported as out of memory.
void* system_allocate(size_t nbytes) {
  void* p = nullptr;
  const cudaError_t status = cudaMalloc(&p, nbytes);
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    return nullptr;
  }
  check(status, "allocating device memory");
  return p;
}

void check_index(int index) {
  STRATA_CHECK(index == 0, "cuda:", index, " is not available: Strata uses one GPU per process, cuda:0 (pick it with "
               "CUDA_VISIBLE_DEVICES; docs/cuda.md)");
}

class CudaMemory final : public DeviceAllocator {
 public:
  void* allocate(size_t nbytes, int index) override {
    check_index(index);
    if (nbytes == 0) return nullptr;
    void* p = cache_.allocate(nbytes);
    if (!p)
      throw OutOfMemoryError("CUDA: out of memory allocating " + std::to_string(nbytes) +
                             " bytes (the cached blocks were returned first)");
    return p;
  }
  void deallocate(void* p, size_t nbytes, int) override { cache_.deallocate(p, nbytes); }
  bool host_accessible() const override { return false; }
  void copy_to_host(void* host, const void* device, size_t nbytes, int index) override {
    check_index(index);
    check(cudaMemcpyAsync(host, device, nbytes, cudaMemcpyDeviceToHost, current_stream()), "copy to the host");
    synchronize();
  }
  void copy_from_host(void* device, const void* host, size_t nbytes, int index) override {
    check_index(index);
    if (nbytes <= PinnedStaging::kLargest && staging_.copy_to_device(device, host, nbytes)) return;  // no wait
    check(cudaMemcpyAsync(device, host, nbytes, cudaMemcpyHostToDevice, current_stream()), "copy to the device");
    synchronize();  // the host buffer may be freed when this returns
  }
  AllocatorStats stats() const override { return cache_.stats(); }
  void empty_cache() override { cache_.empty(); }

 private:
  BlockCache cache_{system_allocate, [](void* p) { (void)cudaFree(p); }};
  PinnedStaging staging_;
};

}  // namespace

DeviceAllocator& device_memory() {
  // Never destroyed: the CUDA runtime may be torn down before static destructors run, and the
  // process's exit frees the device memory anyway.
  static CudaMemory* memory = new CudaMemory;
  return *memory;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
