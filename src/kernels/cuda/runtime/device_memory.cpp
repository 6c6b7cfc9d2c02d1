// The CUDA device's memory: cudaMalloc behind a BlockCache, copies on the backend's stream.
#include "kernels/cuda/runtime/device_memory.hpp"

#include "kernels/cuda/block_cache.hpp"
#include "kernels/cuda/runtime/runtime.hpp"
#include "strata/core/error.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {
namespace {

void* system_allocate(size_t nbytes) {
  void* p = nullptr;
  if (cudaMalloc(&p, nbytes) != cudaSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
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
    STRATA_CHECK(p != nullptr, "CUDA: out of memory allocating ", nbytes, " bytes (",
                 cache_.stats().cached_bytes, " bytes cached were returned first)");
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
    check(cudaMemcpyAsync(device, host, nbytes, cudaMemcpyHostToDevice, current_stream()), "copy to the device");
    synchronize();  // the host buffer may be freed when this returns
  }
  AllocatorStats stats() const override { return cache_.stats(); }
  void empty_cache() override { cache_.empty(); }

 private:
  BlockCache cache_{system_allocate, [](void* p) { (void)cudaFree(p); }};
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
