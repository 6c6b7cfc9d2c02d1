#include "cuda/emulated_backend.hpp"

#include <atomic>
#include <cstring>

#include "kernels/cuda/families.hpp"
#include "strata/core/allocator.hpp"
#include "strata/dispatch/stubs.hpp"

namespace strata::testing {
namespace {

std::atomic<size_t> bytes_to_host{0};

class EmulatedDeviceMemory final : public DeviceAllocator {
 public:
  void* allocate(size_t nbytes, int) override { return CpuAllocator::allocate(nbytes); }
  void deallocate(void* p, size_t nbytes, int) override { CpuAllocator::deallocate(p, nbytes); }
  bool host_accessible() const override { return false; }
  void copy_to_host(void* host, const void* device, size_t nbytes, int) override {
    bytes_to_host += nbytes;
    std::memcpy(host, device, nbytes);
  }
  void copy_from_host(void* device, const void* host, size_t nbytes, int) override {
    std::memcpy(device, host, nbytes);
  }
};

}  // namespace

size_t emulated_bytes_to_host() { return bytes_to_host; }

void install_emulated_cuda() {
  static const bool installed = [] {
    static EmulatedDeviceMemory memory;
    register_allocator(DeviceType::Custom, &memory);
#define STRATA_REGISTER_CPU_KERNEL(name) dispatch::name.set(DeviceType::Custom, dispatch::name.get(DeviceType::CPU));
    STRATA_DISPATCH_STUBS(STRATA_REGISTER_CPU_KERNEL)
#undef STRATA_REGISTER_CPU_KERNEL
#define STRATA_REGISTER_EMULATED(name) dispatch::name.set(DeviceType::Custom, &kernels::cuda::name);
    STRATA_CUDA_PORTABLE_STUBS(STRATA_REGISTER_EMULATED)
#undef STRATA_REGISTER_EMULATED
    return true;
  }();
  (void)installed;
}

}  // namespace strata::testing
