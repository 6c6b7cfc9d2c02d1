// The table of device allocators: the CPU's is built in, other backends register theirs.
#include <array>
#include <cstring>

#include "strata/core/allocator.hpp"
#include "strata/core/error.hpp"

namespace strata {
namespace {

// The caching CpuAllocator as the CPU's device memory.
class CpuMemory final : public DeviceAllocator {
 public:
  constexpr CpuMemory() = default;
  void* allocate(size_t nbytes, int) override { return CpuAllocator::allocate(nbytes); }
  void deallocate(void* p, size_t nbytes, int) override { CpuAllocator::deallocate(p, nbytes); }
  bool host_accessible() const override { return true; }
  void copy_to_host(void* host, const void* device, size_t nbytes, int) override { std::memcpy(host, device, nbytes); }
  void copy_from_host(void* device, const void* host, size_t nbytes, int) override {
    std::memcpy(device, host, nbytes);
  }
};

constinit CpuMemory cpu_memory;
// constinit: allocations from other libraries' static initialisers find the CPU entry in place.
constinit std::array<DeviceAllocator*, kDeviceTypeCount> allocators{&cpu_memory, nullptr, nullptr, nullptr};

}  // namespace

void register_allocator(DeviceType type, DeviceAllocator* allocator) {
  STRATA_CHECK(type != DeviceType::Meta, "register_allocator: the meta device has no memory");
  allocators[static_cast<int>(type)] = allocator;
}

DeviceAllocator& allocator_for(Device device) {
  DeviceAllocator* a = allocators[static_cast<int>(device.type)];
  STRATA_CHECK(a != nullptr, "device ", device.str(), " is not available: no backend registered its memory");
  return *a;
}

}  // namespace strata
