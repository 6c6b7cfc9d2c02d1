// The table of device allocators: the CPU's is built in, other backends register theirs. The CUDA
// backend is a library of its own (libstrata_cuda, docs/cuda.md), loaded from libstrata's folder
// the first time a CUDA device is asked for: its initialiser registers its memory and kernels
// when it finds a GPU.
#include <dlfcn.h>

#include <array>
#include <cstring>
#include <mutex>
#include <string>

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
  AllocatorStats stats() const override { return CpuAllocator::stats(); }
  void empty_cache() override { CpuAllocator::empty_cache(); }
};

constinit CpuMemory cpu_memory;
// constinit: allocations from other libraries' static initialisers find the CPU entry in place.
constinit std::array<DeviceAllocator*, kDeviceTypeCount> allocators{&cpu_memory, nullptr, nullptr, nullptr};
std::array<std::string, kDeviceTypeCount> unavailable_reasons;

// Loads libstrata_cuda once; afterwards the reason CUDA is unavailable, if it is.
void load_cuda_backend() {
  static std::once_flag once;
  std::call_once(once, [] {
    Dl_info self{};
    std::string path = STRATA_CUDA_LIBRARY;  // its soname (cmake/install.cmake)
    if (dladdr(reinterpret_cast<void*>(&load_cuda_backend), &self) && self.dli_fname) {
      std::string library = self.dli_fname;
      const size_t slash = library.rfind('/');
      if (slash != std::string::npos) path = library.substr(0, slash + 1) + path;
    }
    if (!dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      const char* why = dlerror();
      std::string& reason = unavailable_reasons[static_cast<int>(DeviceType::CUDA)];
      if (reason.empty())
        reason = std::string("the CUDA backend did not load (Strata built without it, or a CUDA library is missing): ") +
                 (why ? why : path);
    }
  });
}

DeviceAllocator* registered(DeviceType type) {
  if (type == DeviceType::CUDA && !allocators[static_cast<int>(type)]) load_cuda_backend();
  return allocators[static_cast<int>(type)];
}

}  // namespace

void register_allocator(DeviceType type, DeviceAllocator* allocator) {
  STRATA_CHECK(type != DeviceType::Meta, "register_allocator: the meta device has no memory");
  allocators[static_cast<int>(type)] = allocator;
}

void note_device_unavailable(DeviceType type, const std::string& reason) {
  unavailable_reasons[static_cast<int>(type)] = reason;
}

DeviceAllocator& allocator_for(Device device) {
  DeviceAllocator* a = registered(device.type);
  if (!a) [[unlikely]] {
    const std::string& reason = unavailable_reasons[static_cast<int>(device.type)];
    throw Error("device " + device.str() + " is not available: " +
                (reason.empty() ? std::string("no backend registered its memory") : reason));
  }
  return *a;
}

bool device_available(DeviceType type) { return registered(type) != nullptr; }

std::string device_unavailable_reason(DeviceType type) {
  return device_available(type) ? std::string() : unavailable_reasons[static_cast<int>(type)];
}

}  // namespace strata
